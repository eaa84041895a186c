/**
 * Every wrong name gets the nearest right ones and where to list them all, in one or two lines: a vault, a
 * tool, a command, an option, a --tools entry; over MCP and REST the suggestions come only from the vaults and
 * tools the credential reaches (a key that cannot reach a vault learns nothing about it).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BIN, cliFails, connectStdio } from '../helpers.js';
import { callTool, demoServer, startServer } from '../http-helpers.js';
import { tools } from '../../src/catalog/index.js';

const NW = 'northwind-logistics';
const running = demoServer();
const errorOf = (stderr: string) => (JSON.parse(stderr) as { error: { code: string; message: string } }).error;

describe('on the command line', () => {
  it('an unknown command names the nearest one and the help that lists them, in two lines (no page of help)', () => {
    const r = cliFails(['serv']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      "vault-tools: unknown command 'serv' (did you mean serve?)\n(`vault-tools --help` lists the commands)\n",
    );
    const sub = cliFails(['keys', 'creat']);
    expect(sub.stderr).toBe(
      "vault-tools: unknown command 'creat' (did you mean create?)\n(`vault-tools keys --help` lists its commands)\n",
    );
  });

  it("an unknown option names the nearest one and the command's help", () => {
    const r = cliFails(['call', 'stats', '--vualt', NW, '--data-dir', running.store.dir]);
    expect(r.stderr).toBe(
      "vault-tools: unknown option '--vualt' (did you mean --vault?)\n(`vault-tools call --help` lists its options)\n",
    );
  });

  it('call stat: the nearest tool and where they are listed', () => {
    const r = cliFails(['call', 'stat', '--data-dir', running.store.dir]);
    expect(errorOf(r.stderr)).toMatchObject({
      code: 'tool_not_found',
      message: 'No tool "stat". Did you mean `stats`? `vault-tools tools` lists them all.',
    });
  });

  it.each(['northwind', 'northwind logistics', 'Northwnd'])('--vault "%s" names Northwind Logistics', (wrong) => {
    const r = cliFails(['call', 'stats', '--vault', wrong, '--data-dir', running.store.dir]);
    const e = errorOf(r.stderr);
    expect(e.code).toBe('vault_not_found');
    expect(e.message).toBe(
      `\`vault\`: no vault ${JSON.stringify(wrong)} is available to this key. Did you mean "Northwind Logistics" (${NW})? \`vault-tools call list_vaults --data-dir ${running.store.dir}\` shows every vault it reaches.`,
    );
  });

  it('a --vault of a store-wide command names the nearest and how to list all, with the same --data-dir', () => {
    const r = cliFails(['outbox', '--vault', 'northwind', '--data-dir', running.store.dir]);
    expect(r.stderr).toBe(
      `vault-tools: outbox: --vault "northwind" is no vault's id or name; did you mean ${NW} ("Northwind Logistics")? \`vault-tools call list_vaults --data-dir ${running.store.dir}\` lists all 2\n`,
    );
  });

  it('serve --tools with a name that does not exist stops serve with one sentence', () => {
    const r = cliFails(['serve', '--data-dir', running.store.dir, '--tools', 'search_transcript']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `vault-tools: --tools / --exclude-tools: no tool named search_transcript (did you mean search_transcripts or get_transcript?); \`vault-tools tools\` lists all ${tools.length}\n`,
    );
  });

  it('--read-only names the tool it removes from --tools', async () => {
    const server = await startServer(running.store.dir, ['--read-only', '--tools', 'stats,export_deck']);
    try {
      expect(server.stderr()).toContain(
        'vault-tools: warning: --read-only leaves out export_deck (named in --tools): it changes the store\n',
      );
      const listed = (await (
        await fetch(`${server.url}/v1/tools`, { headers: { authorization: `Bearer ${running.store.ownerKey}` } })
      ).json()) as { data: { tools: { name: string }[] } };
      expect(listed.data.tools.map((t) => t.name)).toEqual(['stats']);
    } finally {
      await server.stop();
    }
  });
});

describe('hints keep the store they ran on', () => {
  // Without --data-dir, `vault-tools call list_vaults` answers from the default store: a new, empty one.
  const onThisStore = () => `--data-dir ${running.store.dir}`;

  it('export: a wrong vault, and the next step after an export', () => {
    const wrong = cliFails([
      'export',
      'northwind',
      join(running.store.dir, 'out-wrong'),
      '--data-dir',
      running.store.dir,
    ]);
    expect(wrong.stderr).toBe(
      `vault-tools: export: no vault "northwind" is available to this key. Did you mean "Northwind Logistics" (${NW})? \`vault-tools call list_vaults ${onThisStore()}\` shows every vault it reaches.\n`,
    );
    const out = join(running.store.dir, 'out');
    const done = spawnSync(process.execPath, [BIN, 'export', NW, out, '--data-dir', running.store.dir], {
      encoding: 'utf8',
      env: { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '' },
    });
    expect(done.status).toBe(0);
    expect(done.stderr).toContain(`\`vault-tools import ${out} ${onThisStore()}\` loads it`);
  });

  it('keys create: a vault the store does not have', () => {
    const r = cliFails(['keys', 'create', '--vault', 'meridian', '--data-dir', running.store.dir]);
    expect(r.stderr).toContain(
      `did you mean meridian-health ("Meridian Health Group")? \`vault-tools call list_vaults ${onThisStore()}\` lists all 2`,
    );
  });
});

describe('over REST and MCP', () => {
  it('vault_not_found suggests among the vaults the key reaches, and only those', async () => {
    const owner = await callTool(running.server.url, 'stats', { vault: 'northwind' }, running.store.ownerKey);
    expect(owner.status).toBe(404);
    expect(owner.json().error.message).toContain(`Did you mean "Northwind Logistics" (${NW})?`);
    // A Meridian-only key asking for Northwind hears nothing of it: the same answer as for a vault that does not exist.
    const member = running.store.memberKey('meridian-health');
    const other = await callTool(running.server.url, 'stats', { vault: 'northwind' }, member);
    const none = await callTool(running.server.url, 'stats', { vault: 'no-such-vault-at-all' }, member);
    expect(other.status).toBe(404);
    expect(other.json().error.code).toBe('vault_not_found');
    expect(other.json().error.message).not.toMatch(/northwind logistics|northwind-logistics/i);
    expect(other.json().error.message.replace('"northwind"', 'X')).toBe(
      none.json().error.message.replace('"no-such-vault-at-all"', 'X'),
    );
  });

  it('tool_not_found suggests among the tools the key is offered', async () => {
    const r = await callTool(running.server.url, 'stat', {}, running.store.ownerKey);
    expect(r.status).toBe(404);
    expect(r.json().error.message).toBe('No tool "stat". Did you mean `stats`? GET /v1/tools lists them all.');
    // export_deck is manager-only: a member key, which GET /v1/tools does not show it, is not offered it either.
    expect(
      (await callTool(running.server.url, 'export_dek', {}, running.store.ownerKey)).json().error.message,
    ).toContain('`export_deck`');
    expect(
      (await callTool(running.server.url, 'export_dek', {}, running.store.memberKey(NW))).json().error.message,
    ).not.toContain('export_deck');
  });

  it('over MCP stdio, a wrong vault gets the same suggestion', async () => {
    const client = await connectStdio(running.store, running.store.ownerKey);
    try {
      const r = await client.callTool({ name: 'stats', arguments: { vault: 'Northwind' } });
      expect(r.isError).toBe(true);
      const text = (r.content as { type: string; text: string }[]).find((c) => c.type === 'text')!.text;
      expect(JSON.parse(text).error.message).toContain(`Did you mean "Northwind Logistics" (${NW})?`);
    } finally {
      await client.close();
    }
  });
});
