/**
 * The stdio process as a client sees it from outside: stdout carries nothing but JSON-RPC, closing stdin
 * ends the process, a bad key fails at start with a clear message, and the demo load is idempotent.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, cliFails, demoStore, tempDir, type DemoStore } from '../helpers.js';
import { SCHEMA_VERSION, loadSqlite } from '../../src/store/db.js';

/** The better-sqlite3 this Node loads (src/store/db.ts: 13 from Node 22 on, 12 on Node 20). */
const Database = loadSqlite();

let store: DemoStore;
beforeAll(() => {
  store = demoStore();
});
afterAll(() => store?.cleanup());

/** Spawns the server, writes the messages, closes stdin, and collects everything until it exits. */
function runSession(
  args: string[],
  messages: object[],
): Promise<{ stdout: string; stderr: string; code: number | null; msAfterClose: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' },
    });
    let stdout = '';
    let stderr = '';
    let closedAt = 0;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ stdout, stderr, code, msAfterClose: Date.now() - closedAt }));
    for (const m of messages) child.stdin.write(`${JSON.stringify(m)}\n`);
    // Wait until every request has its answer, then hang up like a client that quits.
    const expected = messages.filter((m) => 'id' in m).length;
    const timer = setInterval(() => {
      if (stdout.split('\n').filter(Boolean).length >= expected) {
        clearInterval(timer);
        closedAt = Date.now();
        child.stdin.end();
      }
    }, 20);
    setTimeout(() => {
      clearInterval(timer);
      child.kill('SIGKILL');
    }, 20_000);
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

describe('stdio process', () => {
  it('writes only JSON-RPC to stdout and exits promptly when stdin closes', async () => {
    const r = await runSession(
      ['serve', '--data-dir', store.dir, '--key', store.ownerKey],
      [
        initialize,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'stats', arguments: { vault: 'northwind-logistics' } },
        },
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'stats', arguments: { limit: 'x' } } },
      ],
    );
    expect(r.code).toBe(0);
    expect(r.msAfterClose).toBeLessThan(5000);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines.length).toBe(4);
    const replies = new Map(lines.map((l) => JSON.parse(l)).map((r) => [r.id, r]));
    for (const reply of replies.values()) expect(reply.jsonrpc).toBe('2.0');
    expect(replies.get(1).result.serverInfo.name).toBe('vault-tools');
    expect(replies.get(1).result.instructions).toContain('suggest_vault_scope');
    expect(replies.get(2).result.tools.length).toBeGreaterThan(20);
    expect(replies.get(3).result.structuredContent.vault.id).toBe('northwind-logistics');
    expect(replies.get(4).result.isError).toBe(true);
    expect(r.stderr).toContain('MCP server ready on stdio'); // logs go to stderr
  });

  it('the demo command serves MCP on stdio after loading', async () => {
    const r = await runSession(
      ['demo', '--data-dir', store.dir],
      [initialize, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_vaults', arguments: {} } }],
    );
    expect(r.code).toBe(0);
    const replies = new Map(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .map((x) => [x.id, x]),
    );
    expect(replies.get(2).result.structuredContent.vaults).toHaveLength(2);
    // started by a client (stdin and stderr pipes): the keys stay out of the client's log files
    expect(r.stderr).toContain('Demo keys: not printed, as an MCP client started this demo');
    expect(r.stderr).not.toMatch(/vt_\w/);
  });

  it('refuses to start with a key the store does not know, saying what to do', () => {
    const r = cliFails(['serve', '--data-dir', store.dir, '--key', 'vt_not_a_real_key']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('not valid for this store');
  });
});

describe('stdin already closed', () => {
  /** The process run with stdin /dev/null (`ignore`) or a pipe closed before it reads anything: exit code and stderr. */
  function runWithStdinClosed(
    args: string[],
    stdin: 'ignore' | 'closed pipe',
  ): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        stdio: [stdin === 'ignore' ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        env: {
          ...process.env,
          VAULT_TOOLS_KEY: '',
          VAULT_TOOLS_HOME: '',
          VAULT_TOOLS_INDEX: 'off',
          VAULT_TOOLS_LOG: 'warn',
        },
      });
      child.stdin?.end();
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('error', reject);
      child.on('exit', (code) => (clearTimeout(timer), resolve({ code, stderr })));
    });
  }

  it('serve with stdin /dev/null says why it stops and how to serve HTTP only', async () => {
    const r = await runWithStdinClosed(['serve', '--data-dir', store.dir, '--key', store.ownerKey], 'ignore');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('stdin is closed');
    expect(r.stderr).toContain(
      'nothing to read MCP messages from: the stdio server stops. To serve HTTP only, use --http [HOST:]PORT --no-stdio',
    );
  });

  /**
   * `demo --http` as a script or an IDE task starts it (stdin /dev/null or a pipe that ends at once, stdout and
   * stderr pipes): the keys reach the person, the listener keeps serving until SIGTERM, and says why.
   */
  it.each(['ignore', 'closed pipe'] as const)(
    'demo --http with stdin %s prints the keys and keeps serving HTTP until stopped',
    async (stdin) => {
      const child = spawn(process.execPath, [BIN, 'demo', '--data-dir', store.dir, '--http', '127.0.0.1:0'], {
        stdio: [stdin === 'ignore' ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        env: {
          ...process.env,
          VAULT_TOOLS_KEY: '',
          VAULT_TOOLS_HOME: '',
          VAULT_TOOLS_INDEX: 'off',
          VAULT_TOOLS_LOG: 'warn',
        },
      });
      child.stdin?.end();
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      try {
        // Wait for the condition: the sentence that says the listener stays (after stdin ended), and the keys.
        await new Promise<void>((resolve, reject) => {
          const check = () =>
            /keeps serving until stopped/.test(stderr) && /manager, all vaults: vt_\w+\n/.test(stderr) && resolve();
          child.stderr!.on('data', check);
          void exited.then((code) => reject(new Error(`exited ${code}:\n${stderr}`)));
        });
        expect(stderr).toContain('stdin is closed');
        expect(stderr).toMatch(/Demo keys \(this demo store only\):\n {2}manager, all vaults: vt_\w+/);
        const url = /REST API on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(stderr)![1]!;
        const index = (await (await fetch(`${url}/v1`)).json()) as { version: string };
        expect(index.version).toBe('2026-09-02');
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      } finally {
        clearTimeout(timer);
        child.kill('SIGKILL');
      }
    },
    90_000,
  );
});

describe('demo and import', () => {
  it('loading the demo twice gives the same store', () => {
    const { dir, cleanup } = tempDir();
    try {
      const dump = () => {
        const db = new Database(join(dir, 'vault-tools.db'), { readonly: true });
        const tables = db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%' AND name NOT LIKE 'transcript_words_%' AND name NOT IN ('api_keys', 'api_key_vaults') ORDER BY name",
          )
          .pluck()
          .all() as string[];
        const out = tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t}" ORDER BY 1, 2`).all()));
        db.close();
        return out;
      };
      cli(['demo', '--data-dir', dir, '--no-serve']);
      const first = dump();
      const keysFirst = readFileSync(join(dir, 'demo-keys.json'), 'utf8');
      const second = cli(['demo', '--data-dir', dir, '--no-serve'], { stdio: ['ignore', 'pipe', 'pipe'] });
      expect(second).toBe(''); // nothing on stdout
      expect(dump()).toEqual(first);
      expect(readFileSync(join(dir, 'demo-keys.json'), 'utf8')).toBe(keysFirst);
      expect(first.join('').length).toBeGreaterThan(100_000);
    } finally {
      cleanup();
    }
  });

  it('import validates and names the file, record and field that are wrong; a bad vault loads nothing', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const { cpSync, writeFileSync } = await import('node:fs');
      const vaultDir = join(dir, 'vault');
      cpSync(join(import.meta.dirname, '..', '..', 'fixtures', 'northwind'), vaultDir, { recursive: true });
      const tasks = JSON.parse(readFileSync(join(vaultDir, 'tasks.json'), 'utf8'));
      tasks[2].status = 'finished';
      writeFileSync(join(vaultDir, 'tasks.json'), JSON.stringify(tasks));
      const r = cliFails(['import', vaultDir, '--data-dir', join(dir, 'data')]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('tasks.json: 3rd record (number 3), field "status"');
      tasks[2].status = 'done';
      tasks[3].milestoneId = 'ms-nowhere';
      writeFileSync(join(vaultDir, 'tasks.json'), JSON.stringify(tasks));
      expect(cliFails(['import', vaultDir, '--data-dir', join(dir, 'data')]).stderr).toContain(
        'field "milestoneId": no milestone "ms-nowhere"',
      );
      expect(existsSync(join(dir, 'data', 'vault-tools.db'))).toBe(false); // validation fails before the store is opened
      tasks[3].milestoneId = undefined;
      writeFileSync(join(vaultDir, 'tasks.json'), JSON.stringify(tasks));
      cli(['import', vaultDir, '--data-dir', join(dir, 'data')]);
      const stats = JSON.parse(cli(['call', 'stats', '--data-dir', join(dir, 'data')]));
      expect(stats.vault.id).toBe('northwind-logistics');
    } finally {
      cleanup();
    }
  });
});

describe('call and keys', () => {
  it('call prints data on stdout and the error body on failure', () => {
    const out = JSON.parse(cli(['call', 'list_vaults', '--data-dir', store.dir]));
    expect(out.vaults).toHaveLength(2);
    const r = cliFails([
      'call',
      'get_entity',
      '{"entityId": "nope"}',
      '--vault',
      'meridian-health',
      '--data-dir',
      store.dir,
    ]);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stderr).error.code).toBe('not_found');
    expect(JSON.parse(r.stderr).error.requestId).toMatch(/^[0-9a-f-]{36}$/); // the same body as every surface (docs/errors.md)
    expect(cliFails(['call', 'stats', '{not json', '--data-dir', store.dir]).stderr).toContain('not valid JSON');
  });

  it('keys are stored hashed, listed without secrets, and scoped', () => {
    const created = JSON.parse(
      cli(['keys', 'create', '--vault', 'meridian-health', '--name', 'analyst', '--json', '--data-dir', store.dir]),
    );
    expect(created.key).toMatch(/^vt_[0-9A-Za-z]{32}$/);
    const listed = cli(['keys', 'list', '--json', '--data-dir', store.dir]);
    expect(listed).not.toContain(created.key);
    const db = new Database(join(store.dir, 'vault-tools.db'), { readonly: true });
    const raw = JSON.stringify(db.prepare('SELECT * FROM api_keys').all());
    db.close();
    expect(raw).not.toContain(created.key);
    const mine = JSON.parse(listed).find((k: { id: string }) => k.id === created.id);
    expect(mine).toMatchObject({ role: 'member', vaults: ['meridian-health'], name: 'analyst' });
    const vaults = JSON.parse(cli(['call', 'list_vaults', '--key', created.key, '--data-dir', store.dir])).vaults;
    expect(vaults.map((v: { id: string }) => v.id)).toEqual(['meridian-health']);
    expect(cliFails(['keys', 'create', '--data-dir', store.dir]).stderr).toContain('--vault');
  });

  it('an expired key is refused', () => {
    // keys create refuses a past expiry, so the key expires by the clock moving on: set back here.
    const created = JSON.parse(
      cli(['keys', 'create', '--vault', '*', '--expires', '2099-01-01T00:00:00Z', '--json', '--data-dir', store.dir]),
    );
    const db = new Database(join(store.dir, 'vault-tools.db'));
    db.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run('2020-01-01T00:00:00.000Z', created.id);
    db.close();
    const r = cliFails(['call', 'list_vaults', '--key', created.key, '--data-dir', store.dir]);
    expect(r.stderr).toContain('expired');
  });
});

describe('stdio and HTTP in one process', () => {
  it('serves both; closing stdin ends the process, listener included', async () => {
    const { request } = await import('node:http');
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--data-dir', store.dir, '--key', store.ownerKey, '--http', '127.0.0.1:0'],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' },
      },
    );
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const url = await new Promise<string>((resolve) =>
      child.stderr.on('data', (d) => {
        stderr += d;
        const m = /REST API on (http:\/\/[^/\s]+)/.exec(stderr);
        if (m) resolve(m[1]!);
      }),
    );
    const status = await new Promise<number>((resolve) =>
      request(`${url}/v1`, (res) => (res.resume(), resolve(res.statusCode!))).end(),
    );
    expect(status).toBe(200);
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    // The answer's whole first line, however long the machine takes (a fixed wait failed under load).
    const firstLine = await new Promise<string>((resolve) => {
      const done = () => stdout.includes('\n') && resolve(stdout.slice(0, stdout.indexOf('\n')));
      child.stdout.on('data', done);
      done();
    });
    expect(JSON.parse(firstLine).result.serverInfo.name).toBe('vault-tools');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
  });

  it('says which port is in use and how to pick another', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = cliFails(['serve', '--data-dir', store.dir, '--http', `127.0.0.1:${port}`, '--no-stdio']);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
      expect(r.stderr).toContain('--http 0');
    } finally {
      blocker.close();
    }
  });

  it('refuses a wildcard CORS origin and a malformed listen address', () => {
    expect(
      cliFails(['serve', '--data-dir', store.dir, '--http', '0', '--no-stdio', '--allow-origin', '*']).stderr,
    ).toContain('"*" is refused');
    expect(cliFails(['serve', '--data-dir', store.dir, '--http', 'localhost:http', '--no-stdio']).stderr).toContain(
      'expected [HOST:]PORT',
    );
  });
});

describe('mcp-config', () => {
  it('prints the snippet for each client and merges it into a config file, keeping a backup', () => {
    const { dir, cleanup } = tempDir();
    try {
      const desktop = JSON.parse(cli(['mcp-config', '--demo']));
      expect(desktop.mcpServers['vault-demo']).toEqual({ command: process.execPath, args: [BIN, 'demo'] }); // never replaces your own store's entry
      expect(JSON.parse(cli(['mcp-config', '--client', 'vscode'])).servers['vault-tools']).toMatchObject({
        type: 'stdio',
        args: [BIN, 'serve'],
      });
      expect(cli(['mcp-config', '--client', 'claude-code'])).toBe(
        `claude mcp add vault-tools -- ${process.execPath} ${BIN} serve\n`,
      );
      const env = { XDG_CONFIG_HOME: dir, HOME: dir };
      const file = join(dir, 'Claude', 'claude_desktop_config.json');
      mkdirSync(join(dir, 'Claude'));
      writeFileSync(file, JSON.stringify({ mcpServers: { other: { command: 'x' } }, theme: 'dark' }));
      cli(['mcp-config', '--write', '--data-dir', '/srv/vaults'], { env });
      const merged = JSON.parse(readFileSync(file, 'utf8'));
      expect(merged.theme).toBe('dark');
      expect(merged.mcpServers.other).toEqual({ command: 'x' });
      expect(merged.mcpServers['vault-tools'].args).toEqual([BIN, 'serve', '--data-dir', '/srv/vaults', '--init']);
      expect(JSON.parse(readFileSync(`${file}.bak`, 'utf8')).mcpServers['vault-tools']).toBeUndefined();
      expect(cliFails(['mcp-config', '--client', 'emacs']).stderr).toContain('expected one of');
    } finally {
      cleanup();
    }
  });
});

describe('doctor', () => {
  it('passes on a working install and store, and says how to fix a bad data dir', () => {
    const report = JSON.parse(cli(['doctor', '--json', '--data-dir', store.dir]));
    expect(report.ok).toBe(true);
    expect(report.checks.map((c: { name: string }) => c.name)).toEqual([
      'node',
      'sqlite',
      'sqlite-vec',
      'data dir',
      'store',
      'leftovers',
      'embedder',
      'fixtures',
      'remote',
    ]);
    expect(report.checks.find((c: { name: string }) => c.name === 'store').detail).toMatch(
      new RegExp(`^schema ${SCHEMA_VERSION}/${SCHEMA_VERSION}, integrity ok, 2 vaults`),
    );
    // The offline model answers, and says what ran it (the install builds the native kernel on x64 Linux).
    const embedder = report.checks.find((c: { name: string }) => c.name === 'embedder');
    expect(embedder.detail).toMatch(/^use-lite-512 answers \(512 dims, \d+ ms with model load; /);
    if (process.arch === 'x64' && process.platform === 'linux')
      expect(embedder.detail).toContain('; native matrix kernel)');
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, 'a-file');
      writeFileSync(file, 'not a directory');
      const bad = cliFails(['doctor', '--data-dir', join(file, 'data')]);
      expect(bad.status).toBe(1);
      expect(bad.stdout).toMatch(/FAIL data dir/);
      expect(bad.stdout).toContain('fix: pass --data-dir DIR or set VAULT_TOOLS_HOME');
    } finally {
      cleanup();
    }
  });
});
