import { describe, expect, it } from 'vitest';
import { resolveScope, type ScopeVault } from '../../src/search/scope.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { FIXTURE_DIRS } from '../helpers.js';

const vaults: ScopeVault[] = [
  {
    id: 'nw',
    name: 'Northwind Logistics',
    client: 'Northwind Logistics',
    keywords: ['warehouse', 'dock scheduling'],
    summary: 'Warehouse operations discovery across three distribution centres.',
    people: ['Ana Ruiz', 'Priya Natarajan'],
  },
  {
    id: 'mh',
    name: 'Meridian Health Group',
    client: 'Meridian Health Group',
    keywords: ['patient flow', 'discharge'],
    summary: 'Patient flow discovery across three hospitals: emergency department boarding.',
    people: ['Ana Ruiz', 'Helen Okafor'],
  },
];

describe('suggest_vault_scope decisions', () => {
  it('selects every vault the conversation names', () => {
    expect(
      resolveScope('Compare Northwind Logistics with Meridian Health Group', vaults).selectedVaultIds.sort(),
    ).toEqual(['mh', 'nw']);
  });

  it('selects the vault whose keywords and people fit', () => {
    const r = resolveScope(
      'Priya said the dock scheduling spreadsheet is a mess. Priya Natarajan wants options.',
      vaults,
    );
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

describe("suggest_vault_scope never uses one client's vault for another", () => {
  const nwOnly = [vaults[0]!];
  const otherClient =
    'What did Carla Mendes say about the Porto site of Atlantic Freight? She wants the numbers by Friday.';

  it("asks instead of selecting a key's only vault when the conversation names another client's people and site", () => {
    const r = resolveScope(otherClient, nwOnly);
    expect(r.selectedVaultIds).toEqual([]);
    for (const name of ['Carla Mendes', 'Porto', 'Atlantic Freight']) expect(r.clarificationQuestion).toContain(name);
    expect(r.clarificationQuestion).toContain('Northwind Logistics');
    expect(r.clarificationQuestion).not.toContain('Friday'); // a weekday names no client
  });

  it("selects a key's only vault for a conversation with no client-specific words, and says why", () => {
    const r = resolveScope('what are the open conflicts?', nwOnly);
    expect(r.selectedVaultIds).toEqual(['nw']);
    expect(r.clarificationQuestion).toBeNull();
    expect(r.reason).toMatch(/names no person, organisation or site/);
    expect(resolveScope('Show me the Weekly Digest and the open Tasks in Excel.', nwOnly).selectedVaultIds).toEqual([
      'nw',
    ]);
    expect(resolveScope('WHAT ARE THE OPEN CONFLICTS', nwOnly).selectedVaultIds).toEqual(['nw']); // capitals carry no signal here
    expect(resolveScope('Did Carla Mendes reply?', nwOnly).clarificationQuestion).toContain('"Carla Mendes"'); // an opener is not part of a name
  });

  it("selects a key's only vault when the names mentioned are its own", () => {
    expect(resolveScope('Can you check what Priya Natarajan said about the dock?', nwOnly).selectedVaultIds).toEqual([
      'nw',
    ]);
  });

  it('does not let a generic keyword of one vault decide for a conversation about another client', () => {
    const r = resolveScope(
      'Carla Mendes says the warehouse of Atlantic Freight in Porto is behind on dock scheduling.',
      vaults,
    );
    expect(r.candidates[0]).toMatchObject({ id: 'nw' }); // the keywords still fit Northwind...
    expect(r.selectedVaultIds).toEqual([]); // ...but nothing says it is Northwind's
    expect(r.clarificationQuestion).toContain('Atlantic Freight');
  });

  it('tells apart conversations it was not tuned on', () => {
    // Written after the rule was settled: another client's people, yard and call, in a chat style.
    const foreign = resolveScope(
      "quick one - Bruno Carvalho at Iberia Cold Chain wants the Valencia yard throughput before Thursday's call",
      nwOnly,
    );
    expect(foreign.selectedVaultIds).toEqual([]);
    expect(foreign.clarificationQuestion).toContain('Iberia Cold Chain');
    const generic = resolveScope(
      "can you summarise the last meeting and list what's still open? I'd like it as a PDF",
      nwOnly,
    );
    expect(generic.selectedVaultIds).toEqual(['nw']);
  });
});

describe('a topic both shipped vaults have', () => {
  // The shipped vaults as they advertise themselves (vault.json and the people registry).
  const shipped: ScopeVault[] = (['northwind', 'meridian'] as const).map((name) => {
    const f = readVaultDir(FIXTURE_DIRS[name]);
    return {
      id: f.vault.id,
      name: f.vault.name,
      client: f.vault.client,
      keywords: f.vault.keywords,
      summary: f.vault.summary,
      people: f.people.map((p) => p.name),
    };
  });

  it('asks about agency spend (Meridian\'s "agency spend", Northwind\'s "agency labour") instead of picking one', () => {
    const r = resolveScope('What did the client say about agency spend?', shipped);
    expect(r.selectedVaultIds).toEqual([]);
    expect(r.clarificationQuestion).toBe(
      '"agency" appears in more than one engagement. Which engagement is this about: "Meridian Health Group" or "Northwind Logistics"?',
    );
    expect(r.candidates.map((c) => c.score)).toEqual([1, 1]);
  });

  it('still picks the vault a topic of its own fits', () => {
    expect(resolveScope('What did the client say about dock scheduling?', shipped).selectedVaultIds).toEqual([
      'northwind-logistics',
    ]);
    expect(resolveScope('How long do patients wait for bed turnaround?', shipped).selectedVaultIds).toEqual([
      'meridian-health',
    ]);
  });
});
