/**
 * `npx tsx bench/fair-share.ts [--bin PATH] [--seconds N]`: what one key's searches with alternatives cost another
 * key (issue 45, item 14). One `serve --http` on a demo store with the default rate limit (50 calls a second per
 * key, bursts of 100); key A sends a search with five 300-character alternatives every 20 ms (the 50 a second its
 * limit allowed when each call counted as one), key B a plain search every 200 ms. Prints B's latency alone and
 * during the flood, and how A's calls were answered. `--bin` runs another build (e.g. an older checkout's) for an
 * A/B in one window: the machine's load moves absolute numbers, so compare within a run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from './lib/synth.js';

const argv = process.argv.slice(2);
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const bin = resolve(option('--bin') ?? join(ROOT, 'bin', 'vault-tools.js'));
const seconds = Number(option('--seconds') ?? 20);
const VAULT = 'northwind-logistics';
const env = {
  ...process.env,
  VAULT_TOOLS_INDEX: '',
  VAULT_TOOLS_LOG: 'error',
  VAULT_TOOLS_KEY: '',
  VAULT_TOOLS_HOME: '',
};

function run(args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? done(out) : fail(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
};
const summary = (xs: number[]) =>
  `p50 ${percentile(xs, 50).toFixed(1)} ms, p95 ${percentile(xs, 95).toFixed(1)} ms (n=${xs.length})`;

const dir = mkdtempSync(join(tmpdir(), 'vt-fair-'));
try {
  await run(['demo', '--data-dir', dir, '--no-serve']);
  await run(['reindex', '--vault', VAULT, '--data-dir', dir]);
  const flooder = (
    JSON.parse(await run(['keys', 'create', '--vault', VAULT, '--json', '--name', 'flooder', '--data-dir', dir])) as {
      key: string;
    }
  ).key;
  const other = readFileSync(join(dir, 'owner.key'), 'utf8').trim();
  const server = spawn(process.execPath, [bin, 'serve', '--data-dir', dir, '--http', '127.0.0.1:0', '--no-stdio'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((done) => {
    let err = '';
    server.stderr.on('data', (d) => {
      err += d;
      const m = /REST API on (http:\/\/[^/\s]+)/.exec(err);
      if (m) done(m[1]!);
    });
  });
  const search = async (key: string, alternatives?: string[]) => {
    const t = performance.now();
    const res = await fetch(`${url}/v1/tools/search_transcripts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        vault: VAULT,
        query: 'Why are trucks waiting so long at the dock?',
        limit: 5,
        ...(alternatives ? { alternatives } : {}),
      }),
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t };
  };
  const base = 'the lorries sit outside goods in for hours while the drivers wait for a door to come free ';
  const alternatives = (i: number) => Array.from({ length: 5 }, (_, j) => `${i}.${j} ${base.repeat(4)}`.slice(0, 300));
  /** B's plain searches, one every 200 ms, for `ms`. */
  const other200 = async (ms: number) => {
    const times: number[] = [];
    for (const end = performance.now() + ms; performance.now() < end; ) {
      const t = performance.now();
      times.push((await search(other)).ms);
      await new Promise((r) => setTimeout(r, Math.max(0, 200 - (performance.now() - t))));
    }
    return times;
  };
  await search(other); // the model loads
  const alone = await other200(5000);
  const statuses = new Map<number, number>();
  const inFlight: Promise<unknown>[] = [];
  let i = 0;
  const flood = setInterval(
    () =>
      inFlight.push(
        search(flooder, alternatives(i++)).then((r) => statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)),
      ),
    20,
  );
  const during = await other200(seconds * 1000);
  clearInterval(flood);
  await Promise.all(inFlight);
  server.kill('SIGTERM');
  console.log(`build: ${bin}`);
  console.log(
    `load average: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(`B's plain search alone:             ${summary(alone)}`);
  console.log(`B's plain search during A's flood:  ${summary(during)}`);
  console.log(`A's ${i} calls with 5 alternatives: ${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
