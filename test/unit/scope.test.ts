import { describe, expect, it } from 'vitest';
import { resolveScope, type ScopeVault } from '../../src/search/scope.js';

const vaults: ScopeVault[] = [
  { id: 'nw', name: 'Northwind Logistics', client: 'Northwind Logistics', keywords: ['warehouse', 'dock scheduling'], summary: 'Warehouse operations discovery across three distribution centres.', people: ['Ana Ruiz', 'Priya Natarajan'] },
  { id: 'mh', name: 'Meridian Health Group', client: 'Meridian Health Group', keywords: ['patient flow', 'discharge'], summary: 'Patient flow discovery across three hospitals: emergency department boarding.', people: ['Ana Ruiz', 'Helen Okafor'] },
];

describe('suggest_vault_scope decisions', () => {
  it('selects every vault the conversation names', () => {
    expect(resolveScope('Compare Northwind Logistics with Meridian Health Group', vaults).selectedVaultIds.sort()).toEqual(['mh', 'nw']);
  });

  it('selects the vault whose keywords and people fit', () => {
    const r = resolveScope('Priya said the dock scheduling spreadsheet is a mess. Priya Natarajan wants options.', vaults);
    expect(r.selectedVaultIds).toEqual(['nw']);
    expect(r.reason).toContain('Priya Natarajan');
  });

  it('asks about a person in both vaults instead of guessing', () => {
    const r = resolveScope('Ana Ruiz asked for the latest numbers.', vaults);
    expect(r.selectedVaultIds).toEqual([]);
    expect(r.clarificationQuestion).toContain('Ana Ruiz');
    expect(r.clarificationQuestion).toContain('Northwind Logistics');
  });

  it('asks which vault when nothing points anywhere', () => {
    const r = resolveScope('hello there', vaults);
    expect(r.selectedVaultIds).toEqual([]);
    expect(r.clarificationQuestion).toMatch(/Which engagement/);
  });

  it('selects the only vault a key reaches', () => {
    expect(resolveScope('hello', [vaults[0]!]).selectedVaultIds).toEqual(['nw']);
  });
});
