/**
 * The in-process harness (test/harness.ts) gives each kind of principal what a surface would: the owner
 * reaches every vault, a member only its own and no action tool, an outsider the same 404 as for a vault that
 * does not exist; bad arguments get the service's own refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../harness.js';

const NW = 'northwind-logistics';
const MH = 'meridian-health';
let h: Harness;

beforeAll(() => {
  h = harness();
});
afterAll(async () => {
  await h?.close();
});

const vaultIds = async (as: 'owner' | 'member' | 'outsider') =>
  (await h.ok('list_vaults', {}, as)).vaults.map((v: { id: string }) => v.id).sort();

describe('the harness', () => {
  it('loads both shipped vaults and gives each principal its reach', async () => {
    expect(h.vaults).toEqual([NW, MH]);
    expect(await vaultIds('owner')).toEqual([MH, NW]);
    expect(await vaultIds('member')).toEqual([NW]);
    expect(await vaultIds('outsider')).toEqual([MH]);
  });

  it('answers an outsider as for a vault that does not exist, and a member of the vault as the owner', async () => {
    const outsider = await h.call('stats', { vault: NW }, 'outsider');
    const missing = await h.call('stats', { vault: 'no-such-vault' }, 'outsider');
    expect(outsider).toMatchObject({ ok: false, status: 404, code: 'vault_not_found' });
    expect(missing).toMatchObject({ ok: false, status: 404, code: 'vault_not_found' });
    expect(await h.ok('stats', { vault: NW }, 'member')).toEqual(await h.ok('stats', { vault: NW }));
  });

  it('refuses an action tool to a member and bad arguments to anyone, writing nothing', async () => {
    const before = h.outbox().length;
    const member = await h.call('add_task', { vault: NW, title: 'Not mine to add' }, 'member');
    expect(member).toMatchObject({ ok: false, status: 403, code: 'forbidden' });
    const bad = await h.call('list_tasks', { vault: NW, status: 'someday' });
    expect(bad).toMatchObject({ ok: false, status: 400, code: 'invalid_arguments' });
    expect(bad.ok || bad.message).toContain('`status`');
    expect(h.outbox().length).toBe(before);
    await h.ok('add_task', { vault: NW, title: 'The owner may' });
    expect(h.outbox().at(-1)).toMatchObject({ tool: 'add_task', vaultId: NW, keyName: 'owner' });
  });
});
