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
