/**
 * Hostile input, round 3 (issue 36), against one real `serve --http` on a demo store: an OAuth client's name
 * cannot write to the terminal through `keys list`; over-deep JSON on /v1/mcp gets REST's clear 400 and leaves no
 * stack in the log; malformed completion params are -32602 with a short message in both eras; a bidi override
 * in a quoted value cannot reorder an error; and the CLI commands that once failed silently say what is wrong.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, cliFails, demoStore, type DemoStore } from '../helpers.js';
import { http, startServer, type RunningServer } from '../http-helpers.js';
import { connectMcp, ERAS, type McpTestClient } from '../mcp-clients.js';
import { Browser } from '../oauth-helpers.js';
import { sampleArgs } from '../sample-args.js';

const NW = 'northwind-logistics';
const REDIRECT = 'http://127.0.0.1:9/callback';
const BRIEF_TEMPLATE = 'vault-tools://vaults/{vault}/briefs/{kind}';
/** A name that, printed raw, ends the line, hides the rest (ESC[8m), sets the window title (OSC) and fakes a key. */
const HOSTILE_NAME =
  'Calendar\r\n\u001b]0;owned\u0007key_fake0000  vt_fake…  manager  vaults: all  "owner"\u001b[8m hidden';

let store: DemoStore;
let server: RunningServer;
beforeAll(async () => {
  store = demoStore();
  server = await startServer(store.dir, ['--rate-limit', '0']);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  store?.cleanup();
});

const run = (...args: string[]) => cli([...args, '--data-dir', store.dir]);
const fails = (...args: string[]) => cliFails([...args, '--data-dir', store.dir]);

describe('an OAuth client name in the terminal', () => {
  it('registered with CR/LF, OSC and ESC[8m and approved, shows in `keys list` as one line of visible escapes', async () => {
    const registered = await fetch(`${server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: HOSTILE_NAME,
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        application_type: 'native',
      }),
    });
    expect(registered.status).toBe(201);
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const authorize = new URL(`${server.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'vaults',
      state: 's1',
      code_challenge_method: 'S256',
      code_challenge: challenge,
    })) {
      authorize.searchParams.set(k, v);
    }
    const done = await new Browser().consent(authorize.href, server.url, { key: store.ownerKey, vaults: [NW] });
    expect(new URL(done.url).searchParams.get('code'), done.page.slice(0, 300)).toBeTruthy();

    const listed = run('keys', 'list');
    expect(listed).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/); // nothing but the line feeds between entries
    const lines = listed.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('key_fake'))).toEqual([]);
    const grant = lines.filter((l) => l.includes(' OAuth '));
    expect(grant).toHaveLength(1);
    expect(grant[0]).toContain(
      String.raw`"Calendar\u000d\u000a\u001b]0;owned\u0007key_fake0000  vt_fake…  manager  vaults: all  "owner"\u001b[8m hidden"`,
    );
    // JSON stays the exact name, for programs.
    expect(
      (JSON.parse(run('keys', 'list', '--json')) as { clientName?: string }[]).find((g) => g.clientName)?.clientName,
    ).toBe(HOSTILE_NAME);
  });
});

describe('over-deep JSON on /v1/mcp', () => {
  const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const auth = () => ({
    authorization: `Bearer ${store.ownerKey}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  });

  it('depth 5,000 in a 10 KB body: the clear 400 REST gives, with the request id, and no stack in the log', async () => {
    const before = server.stderr().length;
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"stats","arguments":{"vault":${deep(5000)}}}}`;
    expect(body.length).toBeGreaterThan(10_000);
    const mcp = await http(server.url, {
      method: 'POST',
      path: '/v1/mcp',
      headers: { ...auth(), 'mcp-protocol-version': '2025-06-18' },
      body,
    });
    const rest = await http(server.url, {
      method: 'POST',
      path: '/v1/tools/stats',
      headers: auth(),
      body: `{"vault":${deep(5000)}}`,
    });
    expect(rest.status).toBe(400);
    expect(rest.json().error.code).toBe('invalid_request');
    expect(mcp.status).toBe(400);
    expect(mcp.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: `Invalid Request: ${rest.json().error.message}` },
      id: 7,
    });
    expect(rest.json().error.message).toBe(
      "The request's JSON nests objects and arrays more than 200 levels deep; no request needs that many: send flatter JSON.",
    );
    expect(mcp.headers['x-request-id']).toBeTruthy();
    await new Promise((r) => setTimeout(r, 100));
    expect(server.stderr().slice(before)).not.toMatch(/RangeError|\n\s+at /);
  });

  it('over stdio: the same sentence as a JSON-RPC error with the request id, and the next request is served', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', store.dir, '--key', store.ownerKey], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', VAULT_TOOLS_LOG: 'warn', VAULT_TOOLS_INDEX: 'off' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const lines = [
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ].map((m) => JSON.stringify(m));
    lines.push(
      `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"stats","arguments":{},"x":${deep(5000)}}}`,
    );
    lines.push(JSON.stringify({ jsonrpc: '2.0', id: 'next', method: 'ping' }));
    child.stdin.end(`${lines.join('\n')}\n`);
    await new Promise((r) => child.once('exit', r));
    const answers = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string } });
    expect(answers.find((a) => a.id === 'deep')?.error).toEqual({
      code: -32600,
      message:
        "Invalid Request: The request's JSON nests objects and arrays more than 200 levels deep; no request needs that many: send flatter JSON.",
    });
    expect(answers.find((a) => a.id === 'next')).toMatchObject({ result: {} });
    expect(err).not.toMatch(/RangeError|\n\s+at /);
  });

  it('brackets inside strings do not count, and JSON as deep as a chart spec may be still works', async () => {
    const inString = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { s: '[{"\\'.repeat(3000) } });
    const ok = await http(server.url, {
      method: 'POST',
      path: '/v1/mcp',
      headers: { ...auth(), 'mcp-protocol-version': '2025-06-18' },
      body: inString,
    });
    expect(ok.status).toBe(200);
    const rest = await http(server.url, {
      method: 'POST',
      path: '/v1/tools/stats',
      headers: auth(),
      body: `{"vault":${deep(150)}}`,
    });
    expect(rest.json().error).toMatchObject({ code: 'invalid_arguments' }); // past the depth check, to the argument's own
  });
});

describe('completion/complete (and resources/read, prompts/get) with malformed params', () => {
  it.each(ERAS)(
    '%s client over HTTP: -32602 with a short message naming the field, never a zod dump (resources/read and prompts/get too)',
    async (era) => {
      const client: McpTestClient = await connectMcp({ era, wire: 'http', url: server.url, key: store.ownerKey });
      try {
        const bad = [
          [
            { ref: { type: 'ref/resource', uri: BRIEF_TEMPLATE }, argument: { name: 'vault', value: 5 } },
            '`argument.value`: expected string, got number',
          ],
          [
            { ref: { type: 'ref/resource', uri: BRIEF_TEMPLATE }, argument: { name: 'vault' } },
            '`argument.value`: expected string, missing',
          ],
          [{ ref: { type: 'ref/nothing' }, argument: { name: 'vault', value: '' } }, '`ref.type`:'],
          [
            {
              ref: { type: 'ref/resource', uri: BRIEF_TEMPLATE },
              argument: { name: 'vault', value: '' },
              context: { arguments: { vault: [1] } },
            },
            '`context.arguments.vault`: expected string, got an array',
          ],
        ] as const;
        for (const [params, says] of bad) {
          const err = await client.complete(params).then(
            () => undefined,
            (e: { code?: number; message: string }) => e,
          );
          expect(err?.code, JSON.stringify(params)).toBe(-32602);
          expect(err!.message).toContain(says);
          expect(err!.message).not.toMatch(/\n|"code":|invalid_type/);
          expect(err!.message.length).toBeLessThan(200);
        }
        // resources/read and prompts/get, the other requests whose params the SDK checked with a dump.
        for (const [call, says] of [
          [
            () => client.readResource({ uri: 5 } as never),
            'Invalid params for resources/read: `uri`: expected string, got number',
          ],
          [
            () => client.getPrompt({ name: 'orient', arguments: { conversation: 3 } } as never),
            'Invalid params for prompts/get: `arguments.conversation`: expected string, got number',
          ],
        ] as const) {
          const err = await call().then(
            () => undefined,
            (e: { code?: number; message: string }) => e,
          );
          expect(err?.code).toBe(-32602);
          expect(err!.message).toContain(says);
        }
        expect((await client.getPrompt({ name: 'orient' })).messages).toHaveLength(1);
        // Well-formed params still complete.
        const ok = await client.complete({
          ref: { type: 'ref/resource', uri: BRIEF_TEMPLATE },
          argument: { name: 'vault', value: 'north' },
        });
        expect(ok.completion.values).toContain(NW);
      } finally {
        await client.close();
      }
    },
  );
});

describe('bidi controls in quoted values', () => {
  it('U+202E in an unknown prompt name comes back escaped, so it cannot turn the message around', async () => {
    const client = await connectMcp({ era: 'modern', wire: 'http', url: server.url, key: store.ownerKey });
    try {
      const err = await client
        .complete({ ref: { type: 'ref/prompt', name: 'x\u202egnp.exe\u2066' }, argument: { name: 'x', value: '' } })
        .catch((e: Error) => e);
      expect(err.message).toContain('Unknown prompt "x\\u202egnp.exe\\u2066"');
      expect(err.message).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
    } finally {
      await client.close();
    }
  });

  it('and over REST, in the tool-not-found message', async () => {
    const r = await http(server.url, {
      method: 'POST',
      path: `/v1/tools/${encodeURIComponent('a\u202eb\u0085c')}`,
      headers: { authorization: `Bearer ${store.ownerKey}` },
    });
    expect(r.json().error.message).toContain('No tool "a\\u202eb\\u0085c".');
  });
});

describe('commands that once failed silently', () => {
  it('doctor refuses a data dir that does not exist, in the words serve uses, and exits 1', () => {
    const missing = `${store.dir}-nope`;
    const doctor = cliFails(['doctor', '--data-dir', missing]);
    const serve = cliFails(['serve', '--data-dir', missing]);
    expect(doctor.status).toBe(1);
    expect(serve.status).toBe(1);
    const why = `no data dir at ${missing} (chosen by --data-dir): check the path, or `;
    expect(serve.stderr).toContain(why);
    expect(doctor.stdout).toContain(`FAIL data dir   ${why}create a new store there first`);
    expect(doctor.stdout).not.toContain('created on first use');
  });

  it("outbox --vault takes the vault's name as call does, and an unknown vault is an error", () => {
    run('call', 'add_task', JSON.stringify(sampleArgs('add_task', NW)));
    const byName = run('outbox', '--vault', 'Northwind Logistics');
    expect(byName).toContain(`${NW}  add_task`);
    expect(byName).toBe(run('outbox', '--vault', NW));
    const r = fails('outbox', '--vault', 'nope');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^vault-tools: outbox: --vault "nope" is no vault's id or name; `vault-tools call list_vaults --data-dir \S+` lists all 2\n$/,
    );
    // sync --status --vault, the other reader of the outbox, by the same rule.
    expect(run('sync', '--status', '--vault', 'Northwind Logistics')).toMatch(
      new RegExp(`^${NW}  remote -  .*pending 1  failed 0\n$`),
    );
    expect(fails('sync', '--status', '--vault', 'nope').stderr).toMatch(
      /^vault-tools: sync --status: --vault "nope" is no vault's id or name/,
    );
  });

  it('reindex --vault nope is an error with exit 1, not "0 chunks embedded"', () => {
    const r = fails('reindex', '--vault', 'nope');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^vault-tools: reindex: --vault "nope" is no vault's id or name; `vault-tools call list_vaults --data-dir \S+` lists all/,
    );
    expect(r.stderr).not.toContain('chunks embedded');
  });

  it('keys create --vault nowhere is refused (exit 2, no key made) unless --allow-unknown-vault says the vault is coming', () => {
    const before = run('keys', 'list');
    const r = fails('keys', 'create', '--vault', 'nowhere');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `vault-tools: keys create: no vault in this store has the id or name "nowhere"; \`vault-tools call list_vaults --data-dir ${store.dir}\` lists all 2; or add --allow-unknown-vault to grant that id to a vault not synced or imported yet\n`,
    );
    expect(run('keys', 'list')).toBe(before);
    const later = JSON.parse(run('keys', 'create', '--vault', 'nowhere', '--allow-unknown-vault', '--json')) as {
      vaults: string[];
    };
    expect(later.vaults).toEqual(['nowhere']);
  });
});
