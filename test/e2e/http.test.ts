/**
 * The REST listener over real HTTP on a real port: the auth matrix over every tool, request ids, DNS
 * rebinding, bad bodies, rate limits, downloads, OpenAPI validity, MCP over Streamable HTTP, shutdown.
 */
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tools } from '../../src/catalog/index.js';
import { BIN, cli, demoStore, fixture, type DemoStore } from '../helpers.js';
import { callTool, http, startServer, type RunningServer } from '../http-helpers.js';
import { sampleArgs } from '../sample-args.js';
import { loadSqlite } from '../../src/store/db.js';

/** The better-sqlite3 this Node loads (src/store/db.ts: 13 from Node 22 on, 12 on Node 20). */
const Database = loadSqlite();

const NW = 'northwind-logistics';
const MH = 'meridian-health';

let store: DemoStore;
let server: RunningServer;
let keys: { manager: string; nwMember: string; mhMember: string; revoked: string };

beforeAll(async () => {
  store = demoStore();
  const revoked = JSON.parse(cli(['keys', 'create', '--vault', '*', '--json', '--data-dir', store.dir]));
  cli(['keys', 'revoke', revoked.id, '--data-dir', store.dir]);
  keys = {
    manager: store.ownerKey,
    nwMember: store.memberKey(NW),
    mhMember: store.memberKey(MH),
    revoked: revoked.key,
  };
  server = await startServer(store.dir, ['--rate-limit', '0', '--allow-origin', 'https://app.example.com']);
});

afterAll(async () => {
  await server?.stop();
  store?.cleanup();
});

/** The error body every failure carries, with its request id equal to the header. */
function expectError(r: Awaited<ReturnType<typeof http>>, status: number, code: string) {
  expect(r.status, r.body).toBe(status);
  const body = r.json();
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(10);
  expect(body.error.requestId).toBe(r.headers['x-request-id']);
  expect(r.body).not.toMatch(/\n\s+at /); // never a stack trace
  return body.error;
}

describe('metadata', () => {
  it('GET /v1 needs no key and names the real paths', async () => {
    const r = await http(server.url, { path: '/v1' });
    expect(r.status).toBe(200);
    const index = r.json();
    expect(index.version).toBe('2026-09-02');
    expect(index.authentication).toMatch(/Bearer/);
    for (const path of [index.endpoints.vaults, index.endpoints.tools, index.endpoints.openapi]) {
      expect(
        (await http(server.url, { path, headers: { authorization: `Bearer ${keys.manager}` } })).status,
        path,
      ).toBe(200);
    }
    expect(index.endpoints.invokeTool).toBe('/v1/tools/{tool_name}');
    expect(index.endpoints.mcp).toBe('/v1/mcp');
  });

  it('GET /v1/vaults and /v1/tools answer {data} for the key', async () => {
    const vaults = await http(server.url, {
      path: '/v1/vaults',
      headers: { authorization: `Bearer ${keys.nwMember}` },
    });
    expect(vaults.json().data.vaults.map((v: { id: string }) => v.id)).toEqual([NW]);
    const listed = await http(server.url, { path: '/v1/tools', headers: { authorization: `Bearer ${keys.nwMember}` } });
    const names = listed.json().data.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(tools.map((t) => t.name));
    expect(listed.json().data.tools[0].inputSchema.type).toBe('object');
  });
});

describe('auth matrix: every tool, every kind of key', () => {
  for (const tool of tools) {
    it(tool.name, async () => {
      const args = sampleArgs(tool.name, NW);
      expectError(await callTool(server.url, tool.name, args), 401, 'unauthorized');
      expectError(
        await callTool(server.url, tool.name, args, 'vt_wrongwrongwrongwrongwrongwrongwr'),
        401,
        'unauthorized',
      );
      expect(
        expectError(await callTool(server.url, tool.name, args, keys.revoked), 401, 'unauthorized').message,
      ).toContain('revoked');

      const otherVault = await callTool(server.url, tool.name, args, keys.mhMember);
      if (tool.vaultScoped) expectError(otherVault, 404, 'vault_not_found');
      else expect(otherVault.status).toBe(200);

      const member = await callTool(server.url, tool.name, args, keys.nwMember);
      if (tool.access === 'manager') expectError(member, 403, 'forbidden');
      else expect(member.status, member.body).toBe(200);

      const manager = await callTool(server.url, tool.name, args, keys.manager);
      expect(manager.status, manager.body).toBe(200);
      expect(manager.json()).toHaveProperty('data');
    });
  }

  it('a vault the key may not reach answers exactly like one that does not exist', async () => {
    const hidden = (await callTool(server.url, 'stats', { vault: MH }, keys.nwMember)).json().error.message;
    const missing = (await callTool(server.url, 'stats', { vault: 'no-such' }, keys.nwMember)).json().error.message;
    expect(hidden.replace(MH, 'X')).toBe(missing.replace('no-such', 'X'));
  });

  it('refuses an Authorization header that is not a bearer key', async () => {
    expectError(
      await http(server.url, { path: '/v1/vaults', headers: { authorization: `Basic ${keys.manager}` } }),
      401,
      'unauthorized',
    );
    const r = await http(server.url, { path: '/v1/vaults' });
    expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});

describe('request ids', () => {
  it('honours a sane X-Request-Id and replaces anything else, errors included', async () => {
    const sane = await http(server.url, { path: '/v1', headers: { 'x-request-id': 'client-123.abc' } });
    expect(sane.headers['x-request-id']).toBe('client-123.abc');
    const insane = await http(server.url, { path: '/v1/vaults', headers: { 'x-request-id': 'x'.repeat(300) } });
    expect(insane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(insane.json().error.requestId).toBe(insane.headers['x-request-id']);
    const spaces = await http(server.url, { path: '/v1', headers: { 'x-request-id': 'has spaces<script>' } });
    expect(spaces.headers['x-request-id']).not.toContain('script');
  });

  it('is on every kind of response: tool answers, replays, files, MCP, CORS preflights, unknown routes', async () => {
    const id = { 'x-request-id': 'every-response-1' };
    const auth = { authorization: `Bearer ${keys.mhMember}` };
    const answers = [
      await callTool(server.url, 'stats', { vault: MH }, keys.mhMember, id),
      await http(server.url, { path: '/v1/nowhere', headers: id }),
      await http(server.url, { method: 'DELETE', path: '/v1/tools', headers: { ...id, ...auth } }),
      await http(server.url, {
        method: 'OPTIONS',
        path: '/v1/tools/stats',
        headers: { ...id, origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      }),
      await http(server.url, {
        method: 'POST',
        path: '/v1/mcp',
        headers: { ...id, ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      }),
    ];
    const { files } = (await callTool(server.url, 'list_files', { vault: MH }, keys.mhMember)).json().data;
    const file = files.find((f: { downloadUrl?: string }) => f.downloadUrl);
    answers.push(await http(server.url, { path: new URL(file.downloadUrl).pathname, headers: { ...id, ...auth } }));
    expect(answers.map((a) => a.status)).toEqual([200, 404, 405, 204, 200, 200]);
    for (const a of answers) expect(a.headers['x-request-id']).toBe('every-response-1');
  });
});

describe('DNS rebinding and CORS', () => {
  it('refuses a foreign Host or Origin before any work', async () => {
    expectError(await http(server.url, { path: '/v1', headers: { host: 'evil.example:80' } }), 403, 'host_not_allowed');
    const port = new URL(server.url).port;
    expectError(
      await http(server.url, { path: '/v1', headers: { host: `attacker.com:${port}` } }),
      403,
      'host_not_allowed',
    );
    expectError(
      await callTool(server.url, 'stats', { vault: NW }, keys.manager, { origin: 'https://evil.example' }),
      403,
      'origin_not_allowed',
    );
    expect((await http(server.url, { path: '/v1', headers: { host: `localhost:${port}` } })).status).toBe(200);
  });

  it('sends CORS headers only for an allowed origin, naming it exactly', async () => {
    const allowed = await callTool(server.url, 'stats', { vault: NW }, keys.manager, {
      origin: 'https://app.example.com',
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const plain = await callTool(server.url, 'stats', { vault: NW }, keys.manager);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await http(server.url, {
      method: 'OPTIONS',
      path: '/v1/tools/stats',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('Authorization');
  });
});

describe('bad requests', () => {
  it('refuses an oversize body without reading it', async () => {
    const big = JSON.stringify({ conversation: 'x'.repeat(2 * 1024 * 1024) });
    const r = await callTool(server.url, 'suggest_vault_scope', JSON.parse(big), keys.manager);
    expect(expectError(r, 413, 'payload_too_large').message).toContain('1048576');
  });

  it('names what is wrong with malformed JSON, non-objects, content types, tools, fields and routes', async () => {
    const post = (body: string, type = 'application/json', path = '/v1/tools/stats') =>
      http(server.url, {
        method: 'POST',
        path,
        headers: { 'content-type': type, authorization: `Bearer ${keys.manager}` },
        body,
      });
    expect(expectError(await post('{"vault": '), 400, 'invalid_request').message).toContain('not valid JSON');
    expect(expectError(await post('[1,2]'), 400, 'invalid_request').message).toContain('an array');
    expect(expectError(await post('"hi"'), 400, 'invalid_request').message).toContain('JSON object');
    expect(
      expectError(await post('vault=x', 'application/x-www-form-urlencoded'), 400, 'invalid_request').message,
    ).toContain('application/json');
    expectError(await post('{}', 'application/json', '/v1/tools/drop_tables'), 404, 'tool_not_found');
    expect(
      expectError(await post(JSON.stringify({ vault: NW, colour: 1 })), 400, 'invalid_arguments').message,
    ).toContain('`colour`');
    expect(expectError(await post(JSON.stringify({ vault: 7 })), 400, 'invalid_arguments').message).toContain(
      '`vault`',
    );
    expect(
      expectError(
        await post(JSON.stringify({ vault: NW, limit: 'ten' }), 'application/json', '/v1/tools/list_findings'),
        400,
        'invalid_arguments',
      ).message,
    ).toContain('`limit`');
    expectError(
      await http(server.url, { path: '/v2/anything', headers: { authorization: `Bearer ${keys.manager}` } }),
      404,
      'route_not_found',
    );
    const wrongMethod = await http(server.url, {
      method: 'DELETE',
      path: '/v1/tools/stats',
      headers: { authorization: `Bearer ${keys.manager}` },
    });
    expectError(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.allow).toBe('POST');
  });

  it('an empty body means no arguments', async () => {
    const r = await http(server.url, {
      method: 'POST',
      path: '/v1/tools/list_vaults',
      headers: { authorization: `Bearer ${keys.manager}` },
    });
    expect(r.json().data.vaults).toHaveLength(2);
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After once a key has spent its burst', async () => {
    const limited = await startServer(store.dir, ['--rate-limit', '2']);
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 8; i++) {
        last = await callTool(limited.url, 'list_vaults', {}, keys.nwMember);
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]); // burst = 2 × 2
      expect(statuses).toContain(429);
      const r = await callTool(limited.url, 'list_vaults', {}, keys.nwMember);
      expectError(r, 429, 'rate_limited');
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await callTool(limited.url, 'list_vaults', {}, keys.mhMember)).status).toBe(200); // per key
    } finally {
      expect(await limited.stop()).toBe(0);
    }
  });
});

describe('downloads', () => {
  it('serves public files only, to keys that reach the vault', async () => {
    const mh = fixture('meridian');
    const pub = mh.files.find((f) => f.visibility === 'public')!;
    const internal = mh.files.find((f) => f.visibility === 'internal')!;
    const { files } = (await callTool(server.url, 'list_files', { vault: MH }, keys.mhMember)).json().data;
    const url = new URL(files.find((f: { id: string }) => f.id === pub.id).downloadUrl);
    expect(url.origin).toBe(server.url);
    const got = await http(server.url, { path: url.pathname, headers: { authorization: `Bearer ${keys.mhMember}` } });
    expect(got.status).toBe(200);
    expect(got.body).toBe(pub.content);
    expectError(
      await http(server.url, { path: url.pathname, headers: { authorization: `Bearer ${keys.nwMember}` } }),
      404,
      'vault_not_found',
    );
    expectError(
      await http(server.url, {
        path: url.pathname.replace(pub.id, internal.id),
        headers: { authorization: `Bearer ${keys.mhMember}` },
      }),
      404,
      'not_found',
    );
  });

  it('serves an artifact to keys that reach its vault, and nobody else', async () => {
    const dir = join(store.dir, 'artifacts', NW);
    mkdirSync(dir, { recursive: true });
    const bytes = Buffer.from('a,b\n1,2\n');
    writeFileSync(join(dir, 'a1.csv'), bytes);
    const db = new Database(join(store.dir, 'vault-tools.db'));
    db.prepare(
      `INSERT INTO artifacts (vault_id, id, kind, title, file_name, mime_type, size_bytes, path, created_at)
       VALUES (?, 'art-1', 'csv', 'Findings export', 'findings.csv', 'text/csv', ?, ?, ?)`,
    ).run(NW, bytes.length, join('artifacts', NW, 'a1.csv'), new Date().toISOString());
    db.close();
    const found = (await callTool(server.url, 'find_artifact', { vault: NW, query: 'findings' }, keys.nwMember)).json()
      .data.artifacts;
    expect(found[0].artifactId).toBe('art-1');
    const path = new URL(found[0].url).pathname;
    const r = await http(server.url, { path, headers: { authorization: `Bearer ${keys.nwMember}` } });
    expect(r.status).toBe(200);
    expect(r.body).toBe(bytes.toString());
    expect(r.headers['content-type']).toBe('text/csv');
    expect(r.headers['content-disposition']).toBe('attachment; filename="findings.csv"');
    // curl -OJ (7.x reads only the plain filename=) saves it under its name, not the URL's last segment.
    const saveIn = mkdtempSync(join(tmpdir(), 'vt-curl-'));
    try {
      execFileSync('curl', ['-sfOJ', '-H', `Authorization: Bearer ${keys.nwMember}`, new URL(path, server.url).href], {
        cwd: saveIn,
      });
      expect(readdirSync(saveIn)).toEqual(['findings.csv']);
      expect(readFileSync(join(saveIn, 'findings.csv'), 'utf8')).toBe(bytes.toString());
    } finally {
      rmSync(saveIn, { recursive: true, force: true });
    }
    expectError(
      await http(server.url, { path, headers: { authorization: `Bearer ${keys.mhMember}` } }),
      404,
      'vault_not_found',
    );
    expectError(await http(server.url, { path }), 401, 'unauthorized');
    expectError(
      await http(server.url, {
        path: path.replace('art-1', 'art-2'),
        headers: { authorization: `Bearer ${keys.nwMember}` },
      }),
      404,
      'not_found',
    );
  });
});

describe('OpenAPI', () => {
  it('is a valid OpenAPI 3.1 document with every tool, bearer security and the error responses', async () => {
    const doc = (
      await http(server.url, { path: '/v1/openapi.json', headers: { authorization: `Bearer ${keys.manager}` } })
    ).json();
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const tool of tools) {
      const op = doc.paths[`/v1/tools/${tool.name}`].post;
      const keyed = !tool.annotations.readOnlyHint && !tool.sync.localOnly && !tool.sync.staysLocal;
      expect(Object.keys(op.responses).sort()).toEqual([
        '200',
        '400',
        '401',
        '403',
        '404',
        ...(keyed ? ['409'] : []),
        '413',
        '429',
        '503',
      ]);
      // Writes take an Idempotency-Key (a repeat answers without running again); reads do not need one, nor a
      // write with no outbox entry (export_deck, export_report), whose record of a call would be that entry.
      expect((op.parameters ?? []).map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(
        keyed ? ['header:Idempotency-Key'] : [],
      );
    }
    expect(doc.paths['/v1'].get.security).toEqual([]);
    // Each error response names the codes that answer with its status (from the one list of codes).
    const described = (ref: string) => doc.components.responses[ref.split('/').pop()!].description as string;
    expect(described(doc.paths['/v1/tools/stats'].post.responses['503'].$ref)).toMatch(/\(store_busy\)$/);
    expect(described(doc.paths['/v1/tools/stats'].post.responses['404'].$ref)).toMatch(
      /\(tool_not_found, route_not_found, vault_not_found, not_found\)$/,
    );
  });

  it("every tool's real response validates against the document's response schema", async () => {
    const doc = (
      await http(server.url, { path: '/v1/openapi.json', headers: { authorization: `Bearer ${keys.manager}` } })
    ).json();
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const errorSchema = doc.components.schemas.Error;
    for (const tool of tools) {
      const op = doc.paths[`/v1/tools/${tool.name}`].post;
      const validate = ajv.compile(op.responses['200'].content['application/json'].schema);
      for (const vault of [NW, MH]) {
        const r = await callTool(
          server.url,
          tool.name,
          sampleArgs(tool.name, vault as 'northwind-logistics'),
          keys.manager,
        );
        expect(r.status, `${tool.name}: ${r.body}`).toBe(200);
        expect(validate(r.json()), `${tool.name} ${vault}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        expect(
          ajv.validate(
            op.requestBody.content['application/json'].schema,
            sampleArgs(tool.name, vault as 'northwind-logistics'),
          ),
          tool.name,
        ).toBe(true);
      }
    }
    const bad = await callTool(server.url, 'stats', { vault: 3 }, keys.manager);
    expect(ajv.validate(errorSchema, bad.json())).toBe(true);
  });
});

describe('MCP over Streamable HTTP', () => {
  const connect = async (key?: string) => {
    const client = new Client({ name: 'http-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/v1/mcp', server.url), {
        requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
      }),
    );
    return client;
  };

  it('lists and calls tools with a bearer key, limited to its vaults', async () => {
    const client = await connect(keys.nwMember);
    try {
      const { tools: listed } = await client.listTools();
      // A member key is offered only the tools it may call: no manager-only one.
      expect(listed.map((t) => t.name)).toEqual(tools.filter((t) => t.access === 'member').map((t) => t.name));
      const r = await client.callTool({ name: 'stats', arguments: {} });
      expect((r.structuredContent as { vault: { id: string } }).vault.id).toBe(NW);
      const other = await client.callTool({ name: 'stats', arguments: { vault: MH } });
      expect(other.isError).toBe(true);
      expect(JSON.parse((other.content as { text: string }[])[0]!.text).error.code).toBe('vault_not_found');
    } finally {
      await client.close();
    }
  });

  it('is refused without a key', async () => {
    await expect(connect()).rejects.toThrow(/401|unauthorized/i);
  });
});

describe('shutdown', () => {
  it('finishes in-flight requests on SIGTERM and exits cleanly', async () => {
    const s = await startServer(store.dir, ['--rate-limit', '0']);
    // The request is in flight once the server has read its headers: with `Expect: 100-continue` it says so
    // (100 Continue) and waits for the body, which is sent only after SIGTERM. Shutdown closes idle connections only.
    const body = JSON.stringify({ vault: NW, limit: 200 });
    const { hostname, port } = new URL(s.url);
    const req = request({
      hostname,
      port,
      method: 'POST',
      path: '/v1/tools/list_findings',
      headers: {
        authorization: `Bearer ${keys.manager}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      },
    });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (d) => (text += d))
          .on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
    });
    await new Promise<void>((resolve) => req.once('continue', () => resolve()));
    const exit = s.stop();
    req.end(body);
    const r = await answer;
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).data.findings.length).toBeGreaterThan(50);
    expect(await exit).toBe(0);
  });
});

describe('start-up', () => {
  it('answers every request that reaches the port while the listener is still starting (none hangs)', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createNetServer().listen(0, '127.0.0.1', () => {
        const { port: p } = s.address() as { port: number };
        s.close(() => resolve(p));
      });
    });
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--data-dir', store.dir, '--http', `127.0.0.1:${port}`, '--no-stdio'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: {
          ...process.env,
          VAULT_TOOLS_KEY: '',
          VAULT_TOOLS_HOME: '',
          VAULT_TOOLS_INDEX: 'off',
          VAULT_TOOLS_LOG: 'warn',
        },
      },
    );
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    try {
      // Poll as a script waiting for the port does, from the moment the process starts: the first requests land
      // while the OAuth server is still being made. Each must be answered, not left without a handler.
      const answered: number[] = [];
      const deadline = Date.now() + 20_000;
      while (!/REST API on/.test(stderr) && Date.now() < deadline) {
        const status = await http(`http://127.0.0.1:${port}`, { path: '/v1', timeoutMs: 5_000 }).then(
          (r) => r.status,
          (err: Error) => (/ECONNREFUSED/.test(err.message) ? 0 : -1),
        );
        if (status !== 0) answered.push(status);
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(stderr).toMatch(/REST API on/);
      expect(answered.length).toBeGreaterThan(0);
      expect(answered.every((s) => s === 200)).toBe(true);
    } finally {
      await new Promise((done) =>
        child.exitCode !== null ? done(null) : (child.once('exit', done), child.kill('SIGTERM')),
      );
    }
  });
});
