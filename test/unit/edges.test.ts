/**
 * The edge reads of get_entity and expand_graph against a brute-force reading of the same edges table:
 * `slimEdges` (all of an entity's edges, deduplicated) and `strongestEdges` (the strongest few of several
 * entities, read from the weight-ordered indexes), on a random graph with a hub, ties at every weight and
 * relations that run both ways (some whose weaker half lies far beyond the cut).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { slimEdges, strongestEdges, type SlimEdge } from '../../src/store/entities.js';
import { tempDir } from '../helpers.js';

const VAULT = 'v1';
const RELATIONS = ['affects', 'depends_on', 'owns', 'uses'];
let dir: { dir: string; cleanup(): void };
let db: Db;
let edges: { source: string; target: string; relation: string; weight: number }[];
const names = new Map<string, string>();

/** A small deterministic generator, so a failure reproduces. */
function prng(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

beforeAll(() => {
  dir = tempDir();
  db = openDb(dir.dir);
  db.prepare(
    "INSERT INTO vaults (id, name, origin, loaded_at) VALUES (?, 'Edges', 'import', '2026-01-01T00:00:00Z')",
  ).run(VAULT);
  const rnd = prng(11);
  const ids = Array.from({ length: 60 }, (_, i) => `e${String(i).padStart(2, '0')}`);
  const insertEntity = db.prepare(
    "INSERT INTO entities (vault_id, id, type, name, source, first_seen_at) VALUES (?, ?, 'system', ?, 'meeting', '2026-01-01T00:00:00Z')",
  );
  for (const id of ids) {
    // Names repeat, so the name order has ties that the id must settle.
    const name = `Name ${String.fromCharCode(65 + Math.floor(rnd() * 20))}`;
    names.set(id, name);
    insertEntity.run(VAULT, id, name);
  }
  const byKey = new Map<string, (typeof edges)[number]>();
  const add = (source: string, target: string, relation: string, weight: number) => {
    if (source !== target) byKey.set(`${source}|${target}|${relation}`, { source, target, relation, weight });
  };
  // e00 is a hub: every entity points at it, with weights 1–3 (many ties), some also the other way round.
  for (const id of ids.slice(1)) {
    const relation = RELATIONS[Math.floor(rnd() * RELATIONS.length)]!;
    add(id, 'e00', relation, 1 + Math.floor(rnd() * 3));
    if (rnd() < 0.3) add('e00', id, relation, 1 + Math.floor(rnd() * 3));
  }
  for (let i = 0; i < 200; i++) {
    const a = ids[1 + Math.floor(rnd() * 59)]!;
    const b = ids[1 + Math.floor(rnd() * 59)]!;
    const relation = RELATIONS[Math.floor(rnd() * RELATIONS.length)]!;
    add(a, b, relation, 1 + Math.floor(rnd() * 4));
    if (rnd() < 0.25) add(b, a, relation, 1 + Math.floor(rnd() * 4)); // both ways, the halves' weights differ
  }
  edges = [...byKey.values()];
  const insertEdge = db.prepare(
    'INSERT INTO edges (vault_id, source_id, target_id, relation, weight) VALUES (?, ?, ?, ?, ?)',
  );
  for (const e of edges) insertEdge.run(VAULT, e.source, e.target, e.relation, e.weight);
});
afterAll(() => {
  db.close();
  dir.cleanup();
});

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Every (other, relation) pair of an entity, straight from the edge list: the larger weight, `both` when it runs both ways. */
function pairsOf(id: string, exclude?: string): SlimEdge[] {
  const pairs = new Map<string, SlimEdge>();
  for (const e of edges) {
    const direction = e.source === id ? 'out' : e.target === id ? 'in' : undefined;
    if (!direction) continue;
    const other = direction === 'out' ? e.target : e.source;
    if (other === exclude) continue;
    const key = `${other}|${e.relation}`;
    const seen = pairs.get(key);
    if (!seen)
      pairs.set(key, {
        entityId: other,
        name: names.get(other)!,
        type: 'system',
        relation: e.relation,
        direction,
        weight: e.weight,
      });
    else {
      seen.direction = 'both';
      seen.weight = Math.max(seen.weight, e.weight);
    }
  }
  return [...pairs.values()];
}

const byStrengthThenName = (a: SlimEdge, b: SlimEdge) =>
  b.weight - a.weight || compare(a.name, b.name) || compare(a.relation, b.relation) || compare(a.entityId, b.entityId);

describe('slimEdges', () => {
  it('gives every pair of every entity once, strongest first, then by name', () => {
    for (const id of names.keys()) expect(slimEdges(db, VAULT, id)).toEqual(pairsOf(id).sort(byStrengthThenName));
  });
});

describe('strongestEdges', () => {
  /** The documented rule: pairs in (weight, position of from, relation, id) order, the first `limit` kept, shown by name. */
  function reference(fromIds: string[], limit: number, exclude?: string) {
    const all = fromIds.flatMap((from, pos) => pairsOf(from, exclude).map((p) => ({ ...p, from, pos })));
    const kept = all
      .sort(
        (a, b) =>
          b.weight - a.weight || a.pos - b.pos || compare(a.relation, b.relation) || compare(a.entityId, b.entityId),
      )
      .slice(0, limit);
    return kept
      .sort((a, b) => b.weight - a.weight || a.pos - b.pos || byStrengthThenName(a, b))
      .map(({ pos: _pos, ...e }) => e);
  }

  it('keeps the strongest pairs of one entity, a hub included, at every cut', () => {
    for (const id of ['e00', 'e01', 'e07', 'e33']) {
      const total = pairsOf(id).length;
      for (const limit of [1, 2, 3, 5, 8, 13, total - 1, total, total + 5].filter((n) => n >= 1)) {
        expect(strongestEdges(db, VAULT, [id], limit), `${id} limit ${limit}`).toEqual(reference([id], limit));
      }
    }
    expect(pairsOf('e00').some((p) => p.direction === 'both')).toBe(true); // the case of a half beyond the cut is there
  });

  it('keeps the strongest pairs over several entities in their order, without the excluded one', () => {
    const vias = ['e05', 'e00', 'e12', 'e40'];
    for (const limit of [1, 4, 10, 25, 60, 500]) {
      expect(strongestEdges(db, VAULT, vias, limit, 'e19'), `limit ${limit}`).toEqual(reference(vias, limit, 'e19'));
    }
  });

  it('with room for everything, equals slimEdges', () => {
    for (const id of ['e00', 'e02', 'e50']) {
      expect(strongestEdges(db, VAULT, [id], 1000).map(({ from: _f, ...e }) => e)).toEqual(slimEdges(db, VAULT, id));
    }
  });
});
