/**
 * Reads cached per store version (keys, vaults, stats counts) are never stale: a write through the same
 * connection is seen at once, a commit by another connection (another process) from the next turn of the
 * event loop. What search reads (vector coverage, the name index) follows what changes it at once, whichever
 * connection wrote it, and a write of anything else leaves the name index as it was (issue 18).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authenticate, createKey, revokeKey } from '../../src/auth/keys.js';
import { cachedRead, openDb, storeVersion, type Db } from '../../src/store/db.js';
import { writeMeetingChunks } from '../../src/search/chunk-index.js';
import { ensureVectorTable, vectorCoverage } from '../../src/search/vectors.js';
import { storeVectors } from '../../src/search/vector-indexing.js';
import { nameIndex, nameMatcher } from '../../src/search/names.js';
import { normalize } from '../../src/store/text.js';
import { findReachableVault } from '../../src/store/vaults.js';
import { Service } from '../../src/service/invoke.js';
import { tempDir } from '../helpers.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

let dir: { dir: string; cleanup(): void };
let a: Db;
let b: Db;

beforeEach(() => {
  dir = tempDir();
  a = openDb(dir.dir);
  b = openDb(dir.dir); // a second connection stands for another process
});
afterEach(() => {
  a.close();
  b.close();
  dir.cleanup();
});

function addVault(db: Db, id: string) {
  db.prepare("INSERT INTO vaults (id, name, origin, loaded_at) VALUES (?, ?, 'import', '2026-01-01T00:00:00Z')").run(
    id,
    `Vault ${id}`,
  );
}
function addEntity(db: Db, vault: string, id: string) {
  db.prepare(
    "INSERT INTO entities (vault_id, id, type, name, source, first_seen_at) VALUES (?, ?, 'system', ?, 'meeting', '2026-01-01T00:00:00Z')",
  ).run(vault, id, id);
}

describe('store version', () => {
  it('changes with a write through this connection at once, and with another connection’s commit from the next turn', async () => {
    const v0 = storeVersion(a);
    addVault(a, 'v1');
    const v1 = storeVersion(a);
    expect(v1).not.toBe(v0);
    await nextTurn();
    addVault(b, 'v2');
    await nextTurn();
    expect(storeVersion(a)).not.toBe(v1);
  });

  it('recomputes a cached read after any write, and only then', async () => {
    let computed = 0;
    const read = () => cachedRead(a, 'test', () => ++computed);
    expect(read()).toBe(1);
    await nextTurn();
    expect(read()).toBe(1);
    addVault(b, 'elsewhere');
    await nextTurn();
    expect(read()).toBe(2);
    addVault(a, 'here');
    expect(read()).toBe(3);
  });
});

describe('cached reads in use', () => {
  it('a key revoked by another process stops working on the next turn; one revoked here at once', async () => {
    const one = createKey(a, { name: 'one', role: 'member', vaults: '*' });
    const two = createKey(a, { name: 'two', role: 'member', vaults: '*' });
    expect(authenticate(a, one.key).keyId).toBe(one.info.id);
    revokeKey(b, one.info.id);
    await nextTurn();
    expect(() => authenticate(a, one.key)).toThrow(/revoked/);
    expect(authenticate(a, two.key).keyId).toBe(two.info.id);
    revokeKey(a, two.info.id);
    expect(() => authenticate(a, two.key)).toThrow(/revoked/);
  });

  it('a vault imported elsewhere is found, and stats count a new entity', async () => {
    const key = createKey(a, { name: 'k', role: 'member', vaults: '*' }).key;
    const principal = authenticate(a, key);
    expect(findReachableVault(a, principal, 'v1')).toBeUndefined();
    addVault(b, 'v1');
    await nextTurn();
    expect(findReachableVault(a, principal, 'v1')?.id).toBe('v1');
    const service = new Service(a);
    const total = async () => {
      const r = await service.invoke('stats', { vault: 'v1' }, principal);
      if (!r.ok) throw new Error(r.message);
      return (r.data.entities as { total: number }).total;
    };
    expect(await total()).toBe(0);
    addEntity(b, 'v1', 'e1');
    await nextTurn();
    expect(await total()).toBe(1);
    addEntity(a, 'v1', 'e2');
    expect(await total()).toBe(2);
  });
});

function addNamedEntity(db: Db, id: string, name: string, aliases: string[] = []) {
  db.prepare(
    "INSERT INTO entities (vault_id, id, type, name, source, first_seen_at) VALUES ('v', ?, 'system', ?, 'meeting', '2026-01-01T00:00:00Z')",
  ).run(id, name);
  const add = db.prepare(
    "INSERT INTO entity_names (vault_id, entity_id, name, norm, is_alias) VALUES ('v', ?, ?, ?, ?)",
  );
  add.run(id, name, normalize(name), 0);
  for (const alias of aliases) add.run(id, alias, normalize(alias), 1);
}
/** As sync and the loader rename: the entity row updated, its names replaced. */
function rename(db: Db, id: string, name: string) {
  db.transaction(() => {
    db.prepare("UPDATE entities SET name = ? WHERE vault_id = 'v' AND id = ?").run(name, id);
    db.prepare("DELETE FROM entity_names WHERE vault_id = 'v' AND entity_id = ?").run(id);
    db.prepare("INSERT INTO entity_names (vault_id, entity_id, name, norm, is_alias) VALUES ('v', ?, ?, ?, 0)").run(
      id,
      name,
      normalize(name),
    );
  })();
}
function addMeeting(db: Db, id: string, texts: string[]) {
  db.prepare(
    "INSERT OR IGNORE INTO meetings (vault_id, id, name, started_at, attendees_json, extraction_status, created_at) VALUES ('v', ?, ?, '2026-01-01T00:00:00Z', '[]', 'extracted', '2026-01-01T00:00:00Z')",
  ).run(id, id);
  writeMeetingChunks(
    db,
    'v',
    id,
    texts.map((text, i) => ({ index: i, turnStart: i, turnEnd: i, speakers: ['Ann'], startSeconds: null, text })),
  );
}
const fake = { id: 'fake', dims: 8 };
function embedAll(db: Db) {
  const rows = db
    .prepare(
      "SELECT id, content_hash FROM transcript_chunks c WHERE vault_id = 'v' AND NOT EXISTS (SELECT 1 FROM chunk_embeddings WHERE chunk_id = c.id)",
    )
    .all() as { id: number; content_hash: string }[];
  storeVectors(
    db,
    fake.id,
    rows.map((r) => ({
      chunkId: r.id,
      vaultId: 'v',
      contentHash: r.content_hash,
      vector: Float32Array.from({ length: 8 }, (_, i) => (i === r.id % 8 ? 1 : 0)),
    })),
  );
}

describe('vector coverage', () => {
  it('counts chunks and vectors written by another connection at once, and forgets deleted ones', () => {
    addVault(a, 'v');
    ensureVectorTable(a, fake);
    expect(vectorCoverage(a, 'v', 'fake')).toEqual({ chunks: 0, withVectors: 0 });
    addMeeting(b, 'm1', ['first chunk', 'second chunk']);
    expect(vectorCoverage(a, 'v', 'fake')).toEqual({ chunks: 2, withVectors: 0 });
    embedAll(b);
    expect(vectorCoverage(a, 'v', 'fake')).toEqual({ chunks: 2, withVectors: 2 });
    addMeeting(b, 'm1', ['first chunk', 'second chunk, edited', 'third chunk']); // re-chunked: new rows, no vectors yet
    expect(vectorCoverage(a, 'v', 'fake')).toEqual({ chunks: 3, withVectors: 0 });
    embedAll(a);
    expect(vectorCoverage(a, 'v', 'fake')).toEqual({ chunks: 3, withVectors: 3 });
    expect(vectorCoverage(a, 'v', 'other-embedder')).toEqual({ chunks: 3, withVectors: 0 });
    b.prepare("DELETE FROM meetings WHERE vault_id = 'v' AND id = 'm1'").run();
    expect(vectorCoverage(a, 'v', 'fake')).toEqual({ chunks: 0, withVectors: 0 });
  });

  it('is what a count of the chunks says after a vector index of another embedder replaces this one', () => {
    addVault(a, 'v');
    ensureVectorTable(a, fake);
    addMeeting(a, 'm1', ['one', 'two']);
    embedAll(a);
    ensureVectorTable(b, { id: 'fake2', dims: 8 });
    expect(vectorCoverage(a, 'v', 'fake')).toEqual({ chunks: 2, withVectors: 0 });
  });
});

describe('the name index', () => {
  it('finds an entity renamed by another connection on the very next search', async () => {
    addVault(a, 'v');
    addNamedEntity(a, 'e1', 'Dock Scheduling');
    const key = createKey(a, { name: 'k', role: 'member', vaults: '*' }).key;
    const principal = authenticate(a, key);
    const service = new Service(a);
    const names = async (query: string) => {
      const r = await service.invoke('search_knowledge', { vault: 'v', query }, principal);
      if (!r.ok) throw new Error(r.message);
      return (r.data.entities as { id: string; matchedName: string }[]).map((e) => `${e.id}:${e.matchedName}`);
    };
    expect(await names('dock')).toEqual(['e1:Dock Scheduling']);
    rename(b, 'e1', 'Yard Scheduling');
    expect(await names('dock')).toEqual([]);
    expect(await names('yard')).toEqual(['e1:Yard Scheduling']);
    b.prepare("UPDATE entities SET type = 'process' WHERE vault_id = 'v' AND id = 'e1'").run();
    const r = await service.invoke('search_knowledge', { vault: 'v', query: 'yard', type: 'process' }, principal);
    expect(r.ok && (r.data.entities as { id: string }[]).map((e) => e.id)).toEqual(['e1']);
  });

  it('stays the same index through writes of anything else, and through a rename (one entity updated)', () => {
    addVault(a, 'v');
    addNamedEntity(a, 'e1', 'Dock Scheduling');
    addNamedEntity(a, 'e2', 'Dock Door Sensors', ['DDS']);
    const index = nameIndex(a, 'v');
    addVault(b, 'elsewhere');
    addMeeting(a, 'm1', ['a chunk of talk']);
    b.prepare("INSERT INTO settings (key, value) VALUES ('unrelated', 'x')").run();
    expect(nameIndex(a, 'v')).toBe(index);
    rename(b, 'e1', 'Yard Scheduling');
    expect(nameIndex(a, 'v')).toBe(index);
    expect(index.all().map((n) => n.name)).toEqual(['Dock Door Sensors', 'DDS', 'Yard Scheduling']);
    expect(index.match('dock').map((m) => m.name.entityId)).toEqual(['e2']);
    b.prepare("DELETE FROM entities WHERE vault_id = 'v' AND id = 'e2'").run();
    expect(
      nameIndex(a, 'v')
        .all()
        .map((n) => n.name),
    ).toEqual(['Yard Scheduling']);
  });
});

describe('name search through the index', () => {
  /** Names from a small vocabulary (so words repeat across names, as in a vault), with aliases. */
  const WORDS = `dock door sensor scheduling warehouse management system yard forklift invoice payment approval carrier
    freight route planning inventory count cycle pallet label printer shipping receiving returns quality audit supplier
    onboarding contract renewal budget forecast north south east west regional hub team lead manager analyst
    jose garcia muller oconnor dockflow wms erp crm kpi sla otif lead time`
    .split(/\s+/)
    .filter(Boolean);
  const rnd = (() => {
    let s = 7;
    return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  })();
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const typo = (w: string) => {
    if (w.length < 4) return w;
    const i = 1 + Math.floor(rnd() * (w.length - 2));
    const kind = Math.floor(rnd() * 4);
    if (kind === 0) return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2); // swap
    if (kind === 1) return w.slice(0, i) + w.slice(i + 1); // drop
    if (kind === 2) return `${w.slice(0, i)}x${w.slice(i + 1)}`; // replace
    return `${w.slice(0, i)}e${w.slice(i)}`; // insert
  };

  it('gives what a scan of every name gives, for 260 queries, before and after names change', () => {
    addVault(a, 'v');
    for (let i = 0; i < 1500; i++) {
      const n = 1 + Math.floor(rnd() * 4);
      const name = Array.from({ length: n }, () => pick(WORDS)).join(' ');
      addNamedEntity(
        a,
        `e${i}`,
        name.replace(/\b\w/g, (c) => c.toUpperCase()),
        rnd() < 0.2 ? [Array.from({ length: 2 }, () => pick(WORDS)).join('-')] : [],
      );
    }
    const queries: string[] = [];
    for (let i = 0; queries.length < 260; i++) {
      const words = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(WORDS));
      const kind = i % 5;
      if (kind === 0) queries.push(words.join(' '));
      else if (kind === 1) queries.push(words.map((w) => w.slice(0, 1 + Math.floor(rnd() * w.length))).join(' '));
      else if (kind === 2) queries.push(words.map(typo).join(' '));
      else if (kind === 3) queries.push(words.join(''));
      else queries.push(typo(words.map((w) => w.slice(0, Math.max(4, w.length - 2))).join(' ')));
    }
    const check = () => {
      const index = nameIndex(a, 'v');
      const all = index.all();
      let matched = 0;
      for (const raw of queries) {
        const q = normalize(raw);
        const matcher = nameMatcher(q);
        const scan = all.flatMap((n) => {
          const m = matcher(n.forms);
          return m ? [`${n.entityId}/${n.name}/${m.kind}/${m.score}`] : [];
        });
        const indexed = index.match(q).map(({ name: n, match: m }) => `${n.entityId}/${n.name}/${m.kind}/${m.score}`);
        expect(indexed, raw).toEqual(scan);
        if (scan.length) matched++;
      }
      return matched;
    };
    expect(check()).toBeGreaterThan(100); // most queries find something: the comparison is not vacuous
    for (let i = 0; i < 200; i++) rename(a, `e${i * 7}`, Array.from({ length: 2 }, () => pick(WORDS)).join(' '));
    a.prepare("DELETE FROM entities WHERE vault_id = 'v' AND id LIKE 'e1%'").run();
    check();
  });
});
