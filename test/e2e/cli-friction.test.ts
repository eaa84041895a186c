/**
 * What a newcomer meets on the command line: every friction is one line that names the thing and the fix,
 * never a stack trace or a raw errno, and nothing is created that was not asked for.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, cliFails, tempDir } from '../helpers.js';

let tmp: { dir: string; cleanup(): void };
beforeAll(() => {
  tmp = tempDir('vt-friction-');
});
afterAll(() => tmp?.cleanup());

const env = { VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' };

describe('the data dir', () => {
  it('a mistyped data dir is an error, and nothing is created', () => {
    const typo = join(tmp.dir, 'no-such-store');
    for (const args of [['call', 'stats'], ['keys', 'list'], ['outbox']]) {
      const r = cliFails([...args, '--data-dir', typo]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        /^vault-tools: no data dir at .*no-such-store \(chosen by --data-dir\): check the path, or /,
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(typo)).toBe(false);
  });

  it('the fix it names is one the command takes: --init where offered, else a command that makes stores', () => {
    const typo = join(tmp.dir, 'no-such-store');
    expect(cliFails(['call', 'stats', '--data-dir', typo]).stderr).toMatch(
      /check the path, or add --init to create a new store there\n$/,
    );
    for (const args of [['keys', 'create', '--vault', '*'], ['keys', 'list'], ['outbox'], ['reindex']]) {
      const r = cliFails([...args, '--data-dir', typo]);
      expect(r.stderr, args.join(' ')).not.toContain('add --init');
      expect(r.stderr, args.join(' ')).toContain(
        'create a new store there first (`vault-tools serve --init`, `demo`, `import` or `sync`)',
      );
    }
    expect(existsSync(typo)).toBe(false);
  });

  it('VAULT_TOOLS_HOME is checked the same way', () => {
    const r = cliFails(['call', 'stats'], { VAULT_TOOLS_HOME: join(tmp.dir, 'home-typo') });
    expect(r.stderr).toContain('(chosen by VAULT_TOOLS_HOME)');
  });

  it('--init creates it on purpose', () => {
    const fresh = join(tmp.dir, 'fresh');
    expect(JSON.parse(cli(['call', 'list_vaults', '--data-dir', fresh, '--init'])).vaults).toEqual([]);
    expect(existsSync(join(fresh, 'vault-tools.db'))).toBe(true);
  });

  it('a data dir that is a file names the file, no raw EEXIST', () => {
    const file = join(tmp.dir, 'a-file');
    writeFileSync(file, 'x');
    for (const args of [
      ['call', 'stats'],
      ['demo', '--no-serve'],
      ['remote', 'set', 'http://127.0.0.1:9'],
    ]) {
      const r = cliFails([...args, '--data-dir', file]);
      expect(r.stderr.trim()).toBe(
        `vault-tools: the data dir ${file} (chosen by --data-dir) is a file, not a folder: name a folder`,
      );
    }
  });

  it('an existing empty folder is a store to be (the user made it)', () => {
    const made = join(tmp.dir, 'made');
    mkdirSync(made);
    expect(JSON.parse(cli(['call', 'list_vaults', '--data-dir', made])).vaults).toEqual([]);
  });
});

describe('keys', () => {
  it('refuses an expiry in the past (the key would never work)', () => {
    const dir = join(tmp.dir, 'keys');
    mkdirSync(dir);
    const r = cliFails(['keys', 'create', '--vault', '*', '--expires', '2020-01-01', '--data-dir', dir]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      'vault-tools: keys create: --expires 2020-01-01T00:00:00.000Z is in the past, so the key would never work; give a future datetime',
    );
    expect(JSON.parse(cli(['keys', 'list', '--json', '--data-dir', dir]))).toEqual([]);
  });
});

describe('stdout', () => {
  it('a reader that stops early (| head) ends the command quietly, exit 0', () => {
    // A pipe closed after the first line: the shell's `| head -1`; bash reports the writer's exit status.
    const r = spawnSync(
      'bash',
      ['-c', `"${process.execPath}" "${BIN}" tools --json | head -1; echo "status=\${PIPESTATUS[0]}" >&2`],
      { encoding: 'utf8', env: { ...process.env, ...env } },
    );
    expect(r.stdout).toBe('{\n');
    expect(r.stderr.trim()).toBe('status=0');
  });
});

describe('mcp-config', () => {
  it('writes an absolute data dir, and takes VAULT_TOOLS_HOME', () => {
    const rel = spawnSync(process.execPath, [BIN, 'mcp-config', '--data-dir', 'rel/store'], {
      cwd: tmp.dir,
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    const args = JSON.parse(rel.stdout).mcpServers['vault-tools'].args as string[];
    expect(args.slice(-3)).toEqual(['--data-dir', join(tmp.dir, 'rel/store'), '--init']);
    const home = spawnSync(process.execPath, [BIN, 'mcp-config'], {
      cwd: tmp.dir,
      encoding: 'utf8',
      env: { ...process.env, ...env, VAULT_TOOLS_HOME: tmp.dir },
    });
    expect((JSON.parse(home.stdout).mcpServers['vault-tools'].args as string[]).slice(-2)).toEqual([
      '--data-dir',
      tmp.dir,
    ]);
  });

  it('`demo --data-dir ./relative` prints its client entries with the absolute path, as mcp-config --demo does', () => {
    const r = spawnSync(process.execPath, [BIN, 'demo', '--data-dir', './rel-demo', '--no-serve'], {
      cwd: tmp.dir,
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    expect(r.status, r.stderr).toBe(0);
    const absolute = join(tmp.dir, 'rel-demo');
    const desktop = JSON.parse(
      /Claude Desktop \(claude_desktop_config\.json\):\n(\{[\s\S]*?\n\})\n/.exec(r.stderr)![1]!,
    );
    expect(desktop.mcpServers['vault-demo'].args).toEqual([BIN, 'demo', '--data-dir', absolute]);
    expect(r.stderr).toContain(
      `Claude Code: claude mcp add vault-demo -- ${process.execPath} ${BIN} demo --data-dir ${absolute}\n`,
    );
    // The Try: line names the same Node as the client entries (by its path), not whichever `node` a shell finds first.
    expect(r.stderr).toContain(`Try: ${process.execPath} ${BIN} call stats --vault `);
    expect(r.stderr).not.toContain('./rel-demo');
    const config = spawnSync(process.execPath, [BIN, 'mcp-config', '--demo', '--data-dir', './rel-demo'], {
      cwd: tmp.dir,
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    expect(JSON.parse(config.stdout)).toEqual(desktop);
  }, 60_000);

  it('--write --demo and --write keep both entries, and a write that replaces an entry says so', () => {
    const home = join(tmp.dir, 'write-home');
    const withHome = { ...env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
    const file = join(home, '.config', 'Claude', 'claude_desktop_config.json');
    const write = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, 'mcp-config', '--write', ...args], {
        encoding: 'utf8',
        env: { ...process.env, ...withHome },
      });
    expect(write().stderr).toMatch(/^wrote "vault-tools" into \S+claude_desktop_config\.json; restart the client\n$/);
    expect(write('--demo').stderr).toMatch(/^wrote "vault-demo" into /);
    const servers = JSON.parse(readFileSync(file, 'utf8')).mcpServers;
    expect(Object.keys(servers).sort()).toEqual(['vault-demo', 'vault-tools']);
    expect(servers['vault-tools'].args).toEqual([BIN, 'serve']);
    expect(servers['vault-demo'].args).toEqual([BIN, 'demo']);
    expect(write('--demo').stderr).toContain('(it was already there, unchanged)');
    const replaced = write('--demo', '--data-dir', join(tmp.dir, 'other-demo')).stderr;
    expect(replaced).toContain(
      `wrote "vault-demo" into ${file} (it replaced the earlier "vault-demo" entry, which ran \`demo\`; another --name keeps both)`,
    );
    expect(write('--name', 'work', '--data-dir', join(tmp.dir, 'x')).stderr).toMatch(/^wrote "work" into /);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).mcpServers).sort()).toEqual([
      'vault-demo',
      'vault-tools',
      'work',
    ]);
  });
});

describe('stdin already closed', () => {
  // Background indexing left on: its start-up delay was what shutdown waited on, with nothing left to wait for.
  const indexOn = { ...process.env, ...env, VAULT_TOOLS_INDEX: '' };
  it('demo and serve shut down cleanly, exit 0, not the silent 13 of an unsettled await', () => {
    const dir = join(tmp.dir, 'closed-stdin');
    for (const args of [['demo'], ['serve']]) {
      const r = spawnSync(process.execPath, [BIN, ...args, '--data-dir', dir], {
        input: '',
        encoding: 'utf8',
        env: indexOn,
        timeout: 30_000,
      });
      expect(r.status, `${args[0]}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toContain('MCP server ready on stdio');
      expect(r.stderr).toContain('stdin is closed (it ended before any MCP message came');
    }
  }, 60_000);
});
