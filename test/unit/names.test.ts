import { describe, expect, it } from 'vitest';
import { matchName } from '../../src/search/names.js';
import { normalize } from '../../src/store/text.js';

const m = (q: string, name: string) => matchName(normalize(q), normalize(name));

describe('name matching for search_knowledge', () => {
  it('matches exactly regardless of case, accents and word order', () => {
    expect(m('warehouse management system', 'Warehouse Management System')?.kind).toBe('exact');
    expect(m('SAINT ALDHELMS', "Saint Aldhelm's")?.kind).toBe('exact');
    expect(m('jose garcia', 'José García')?.kind).toBe('exact');
    expect(m('garcia jose', 'José García')?.kind).toBe('exact');
  });

  it('matches prefixes of the name or of its words', () => {
    expect(m('wareh', 'Warehouse Management System')?.kind).toBe('prefix');
    expect(m('manag sys', 'Warehouse Management System')?.kind).toBe('prefix');
  });

  it('tolerates small typos in longer words only', () => {
    expect(m('warehuose', 'Warehouse Management System')?.kind).toBe('fuzzy');
    expect(m('managment', 'Warehouse Management System')?.kind).toBe('fuzzy');
    expect(m('wms', 'WNS')).toBeUndefined(); // three letters: no typo budget
    expect(m('forklift', 'Warehouse Management System')).toBeUndefined();
  });

  it('ranks exact above prefix above fuzzy', () => {
    const exact = m('dock', 'Dock')!.score;
    const prefix = m('dock', 'Dock Scheduling')!.score;
    const fuzzy = m('dokc', 'Dock')!;
    expect(fuzzy.kind).toBe('fuzzy');
    expect(exact).toBeGreaterThan(prefix);
    expect(prefix).toBeGreaterThan(fuzzy.score);
  });
});

describe('the name index of a vault', () => {
  it('follows the store: a name added or removed is matched (or not) from the next search', async () => {
    const { openDb } = await import('../../src/store/db.js');
    const { nameIndex, nameMatcher } = await import('../../src/search/names.js');
    const { tempDir } = await import('../helpers.js');
    const dir = tempDir();
    const db = openDb(dir.dir);
    try {
      db.prepare(
        "INSERT INTO vaults (id, name, origin, loaded_at) VALUES ('v', 'V', 'import', '2026-01-01T00:00:00Z')",
      ).run();
      const add = (id: string, name: string) => {
        db.prepare(
          "INSERT INTO entities (vault_id, id, type, name, source, first_seen_at) VALUES ('v', ?, 'system', ?, 'meeting', '2026-01-01T00:00:00Z')",
        ).run(id, name);
        db.prepare("INSERT INTO entity_names (vault_id, entity_id, name, norm, is_alias) VALUES ('v', ?, ?, ?, 0)").run(
          id,
          name,
          normalize(name),
        );
      };
      const found = (query: string) =>
        nameIndex(db, 'v')
          .all()
          .filter((n) => nameMatcher(normalize(query))(n.forms))
          .map((n) => n.entityId);
      add('e1', 'Dock Scheduling');
      expect(found('dock')).toEqual(['e1']);
      expect(nameIndex(db, 'v')).toBe(nameIndex(db, 'v')); // unchanged store: the same index, not read again
      add('e2', 'Dock Door Sensors');
      expect(found('dock').sort()).toEqual(['e1', 'e2']);
      expect(found('dokc sensor')).toEqual(['e2']); // fuzzy, through the remembered word distances
      db.prepare("DELETE FROM entity_names WHERE entity_id = 'e1'").run();
      expect(found('dock')).toEqual(['e2']);
    } finally {
      db.close();
      dir.cleanup();
    }
  });
});

describe('editDistance', () => {
  it('counts edits and adjacent swaps, stops past the budget, and gives the same answers call after call', async () => {
    const { editDistance } = await import('../../src/store/text.js');
    const cases: [string, string, number, number][] = [
      ['dock', 'dokc', 2, 1], // one swap
      ['warehouse', 'warehuose', 2, 1],
      ['kitten', 'sitting', 3, 3],
      ['managment', 'management', 2, 1],
      ['a'.repeat(60), `${'a'.repeat(58)}bb`, 3, 2], // longer than the rows it started with
      ['scheduling', 'schedulnig', 2, 1],
      ['abc', 'xyz', 1, 2], // past the budget: budget + 1
      ['', 'ab', 2, 2],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [a, b, max, want] of cases) expect(editDistance(a, b, max), `${a} → ${b}`).toBe(want);
    }
  });
});
