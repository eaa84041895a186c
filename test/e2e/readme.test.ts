/**
 * The README cannot drift: every fenced `sh` block runs, in the README's order, as a newcomer would type it,
 * on a fresh home folder (so the platform data dir and Claude Desktop's config are temp folders), with
 * `vault-tools` on the PATH the way `npm link` puts it there (a link to bin/vault-tools.js) and `claude`
 * replaced by a recorder. What the README tells a client to start (`claude mcp add …`, the entry
 * `mcp-config --write` merges in) is then started, from another folder, and driven by the MCP SDK client.
 *
 * A block preceded by `<!-- readme-test skip: REASON -->` installs or downloads; REASON names the tests
 * (or .ci/run) that cover it, and those must exist. Port 8787 becomes a free port, so runs do not collide.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tools } from '../../src/catalog/index.js';
import { BIN, ROOT, tempDir } from '../helpers.js';

interface Block {
  code: string;
  /** The reason of a `readme-test skip` comment right before the block. */
  skip?: string;
}

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

function blocks(lang: string): Block[] {
  const re = new RegExp(
    `(?:<!--\\s*readme-test skip:\\s*([\\s\\S]*?)\\s*-->\\s*\\n)?\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``,
    'g',
  );
  return [...README.matchAll(re)].map((m) => ({ code: m[2]!, skip: m[1] }));
}

const SH = blocks('sh');
const RUN = SH.filter((b) => !b.skip);
const commandLines = (b: Block) =>
  b.code
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l && !l.startsWith('#'));

let tmp: { dir: string; cleanup(): void };
let work: string;
let home: string;
let shims: string;
let claudeLog: string;
let port: number;
let env: NodeJS.ProcessEnv;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = s.address() as { port: number };
      s.close(() => resolve(p));
    });
  });

beforeAll(async () => {
  tmp = tempDir('vt-readme-');
  work = join(tmp.dir, 'work');
  home = join(tmp.dir, 'home');
  shims = join(tmp.dir, 'bin');
  claudeLog = join(tmp.dir, 'claude.log');
  for (const d of [work, home, shims]) mkdirSync(d);
  // What `npm link` and `npm install -g` put on the PATH: a link to the package's bin.
  symlinkSync(BIN, join(shims, 'vault-tools'));
  // Claude Code is not installed here: record what it is asked to add, answer as it does.
  writeFileSync(
    join(shims, 'claude'),
    `#!${process.execPath}\nconst args = process.argv.slice(2);\nrequire('fs').appendFileSync(process.env.CLAUDE_SHIM_LOG, JSON.stringify(args) + '\\n');\nconsole.log('Added stdio MCP server ' + args[2]);\n`,
  );
  chmodSync(join(shims, 'claude'), 0o755);
  port = await freePort();
  const { VAULT_TOOLS_HOME, VAULT_TOOLS_KEY, XDG_CONFIG_HOME, XDG_DATA_HOME, ...inherited } = process.env;
  env = {
    ...inherited,
    PATH: [shims, process.env.PATH].join(delimiter),
    HOME: home,
    CLAUDE_SHIM_LOG: claudeLog,
    // Not a README command: the test leaves the vector index alone to spare the CPU.
    VAULT_TOOLS_INDEX: 'off',
  };
});
afterAll(() => tmp?.cleanup());

/**
 * bash for a block, its lines run one after the other as a person pastes them: nothing waits for a server sent
 * to the background unless the block itself does. It stops at the first failure; servers are stopped at the end.
 */
function script(b: Block): string {
  return [
    'set -eo pipefail',
    "trap 'status=$?; for job in $(jobs -p); do kill $job 2>/dev/null || true; done; wait; exit $status' EXIT",
    b.code.replace(/\b8787\b/g, String(port)),
  ].join('\n');
}

function run(b: Block): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', script(b)], { cwd: work, env, encoding: 'utf8', timeout: 90_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every runnable block needs an expectation of its output: a new block without one fails here. */
const EXPECT: [RegExp, (r: { stdout: string; stderr: string }) => void][] = [
  [
    /vault-tools demo --data-dir \.\/demo-store --no-serve/,
    (r) => {
      expect(r.stderr).toMatch(/Demo keys \(this demo store only\):\n {2}manager, all vaults: vt_\w+/);
      expect(r.stdout.match(/"mcpServers"/g)).toHaveLength(2);
      expect(r.stdout).toContain(JSON.stringify(join(work, 'demo-store')));
    },
  ],
  [
    /vault-tools mcp-config --write/,
    (r) => {
      expect(r.stderr).toMatch(/wrote "vault-tools" into .*claude_desktop_config\.json/);
    },
  ],
  [
    /claude mcp add/,
    (r) => {
      expect(r.stdout).toContain('Added stdio MCP server vault-tools');
    },
  ],
  [
    /keys create/,
    (r) => {
      // cat owner.key, then two new keys, then the list.
      const lines = r.stdout.trim().split('\n');
      expect(lines.slice(0, 3).every((l) => /^vt_\w{20,}$/.test(l))).toBe(true);
      const list = lines.slice(3).join('\n');
      expect(list).toContain('"Ana"');
      expect(list).not.toContain(lines[1]!.slice(12)); // the list never shows a secret
    },
  ],
  [
    /vault-tools call export_report .* --out \.\/reports/,
    (r) => {
      expect(JSON.parse(r.stdout.slice(0, r.stdout.lastIndexOf('}') + 1))).toMatchObject({
        kind: 'report',
        mimeType: 'application/pdf',
      });
      expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^northwind-logistics-findings-.*\.pdf$/);
      expect(r.stderr).toMatch(/copied .*\.pdf to reports\//);
    },
  ],
  [
    /curl -s http:\/\/127\.0\.0\.1:8787\/v1 /,
    (r) => {
      expect(r.stdout).toContain('"version":"2026-09-02"');
      expect(r.stdout).toMatch(/"vaults":\[\{"id":"/);
      expect(r.stdout).toContain('"id":"northwind-logistics"');
      expect(r.stdout).toMatch(/}200\n$/); // the page, after the JSON answers (which end without a newline)
    },
  ],
];

describe('the README', () => {
  it('starts with the install-and-demo command and the test command that .ci/run runs', () => {
    const [first, second] = commandLines(SH[0]!);
    expect(first).toMatch(/^npm ci && npm run demo -- --http 8787$/);
    expect(second).toBe('npm test');
    // .ci/run times each part (`step CMD`): the install from scratch, then the README's test command, last.
    const steps = readFileSync(join(ROOT, '.ci', 'run'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('step '))
      .map((l) => l.slice('step '.length));
    expect(steps).toContain('npm ci --no-audit --no-fund');
    expect(steps.at(-1)).toBe(second);
  });

  it('names the Node lines package.json supports', () => {
    // engines `^20.18.1 || ^22.0.0 || …` → "Runs on Node.js 26, 24, 22 and 20.18.1"
    const engines = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node as string;
    const lines = engines
      .split('||')
      .map((c) =>
        c
          .trim()
          .replace(/^\^/, '')
          .replace(/\.0\.0$/, ''),
      )
      .sort((a, b) => parseInt(b, 10) - parseInt(a, 10));
    expect(lines.length).toBeGreaterThan(1);
    expect(README).toContain(`Runs on Node.js ${lines.slice(0, -1).join(', ')} and ${lines.at(-1)}`);
  });

  it('names, for every block it does not run, the tests that cover it', () => {
    const skipped = SH.filter((b) => b.skip);
    expect(skipped.length).toBeGreaterThan(0);
    for (const b of skipped) {
      const covered = [...b.skip!.matchAll(/(?:test\/[\w/.-]+\.ts|\.ci\/run)/g)].map((m) => m[0]);
      expect(covered.length, `no test named for:\n${b.code}`).toBeGreaterThan(0);
      for (const file of covered) expect(existsSync(join(ROOT, file)), file).toBe(true);
    }
  });

  it("runs the first command's demo: it serves the REST API until stopped", async () => {
    const demo = commandLines(SH[0]!)[0]!
      .replace(/^npm ci && /, '')
      .replace(/\b8787\b/g, String(port));
    const child = spawn('bash', ['-c', demo], { cwd: ROOT, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listener after 60 s:\n${err}`)), 60_000);
        child.stderr.on('data', () => /REST API on/.test(err) && (clearTimeout(timer), resolve()));
        void exited.then((code) => reject(new Error(`exited ${code}:\n${err}`)));
      });
      expect(err).toMatch(/Demo keys/);
      expect(((await (await fetch(`http://127.0.0.1:${port}/v1`)).json()) as { version: string }).version).toBe(
        '2026-09-02',
      );
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  }, 90_000);

  for (const b of RUN) {
    it(`runs: ${commandLines(b)[0]}`, () => {
      const r = run(b);
      expect(r.status, `exit ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`).toBe(0);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      const checks = EXPECT.filter(([re]) => re.test(b.code));
      expect(checks.length, `no expectation for the README block:\n${b.code}`).toBeGreaterThan(0);
      for (const [, check] of checks) check(r);
    }, 120_000);
  }

  it('its Claude Desktop example has the shape `mcp-config` writes', () => {
    const [example] = blocks('json');
    const shown = JSON.parse(example!.code).mcpServers['vault-tools'];
    const written = JSON.parse(readFileSync(join(home, '.config', 'Claude', 'claude_desktop_config.json'), 'utf8'))
      .mcpServers['vault-tools'];
    expect(Object.keys(written).sort()).toEqual(Object.keys(shown).sort());
    expect(written.args.slice(1)).toEqual(shown.args.slice(1));
    expect(written.args[0]).toBe(BIN);
  });

  /** Starts a client entry as the client would, from a folder of its own, and lists its tools over stdio. */
  async function listTools(command: string, args: string[]): Promise<string[]> {
    const elsewhere = join(tmp.dir, 'client-cwd');
    mkdirSync(elsewhere, { recursive: true });
    const client = new Client({ name: 'readme-test', version: '1' });
    await client.connect(
      new StdioClientTransport({ command, args, cwd: elsewhere, env: env as Record<string, string>, stderr: 'pipe' }),
    );
    try {
      return (await client.listTools()).tools.map((t) => t.name);
    } finally {
      await client.close();
    }
  }

  it('the entry `mcp-config --write` merged into Claude Desktop starts a server with every tool', async () => {
    const entry = JSON.parse(readFileSync(join(home, '.config', 'Claude', 'claude_desktop_config.json'), 'utf8'))
      .mcpServers['vault-tools'];
    expect(await listTools(entry.command, entry.args)).toEqual(tools.map((t) => t.name));
  }, 60_000);

  it('every server `claude mcp add` was given starts, with every tool', async () => {
    const added = readFileSync(claudeLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as string[]);
    const inReadme = RUN.flatMap(commandLines).filter((l) => l.startsWith('claude mcp add'));
    expect(added).toHaveLength(inReadme.length);
    for (const args of added) {
      expect(args.slice(0, 2)).toEqual(['mcp', 'add']);
      const [command, ...rest] = args.slice(args.indexOf('--') + 1);
      expect(await listTools(command!, rest), args.join(' ')).toEqual(tools.map((t) => t.name));
    }
    // A relative data dir would have made a store in the client's folder instead of using the one named.
    expect(readdirSync(join(tmp.dir, 'client-cwd'))).toEqual([]);
  }, 90_000);
});
