/**
 * Soak: what a working week asks of one `serve` over stdio and one `serve --http` sharing a data dir, compressed
 * into minutes (`npm run bench -- --only soak`; `--soak-minutes N` runs longer, default 3). The data dir is the demo
 * vaults, pulled from a second `serve --http` (the "hosted" service), which the HTTP server keeps pulling from
 * (`--sync-every`). Each round, on both servers: the read tools, search_transcripts with and without
 * alternatives, every view's `ui://` resource (stdio), a chart, a report and a deck export, writes (a task added,
 * then closed; the HTTP server's sync pushes their outbox upstream), an OAuth refresh-token rotation and a REST
 * call with the new access token.
 *
 * Sampled through the run: RSS and open file descriptors of each server, the stdio server's JS heap (through its
 * inspector, no collection forced: forcing one would hide what the heap trim does), and the WAL's size. Rows:
 * RSS and fds of the last quarter against the second (after warm-up), p99 per tool of the last quarter against the
 * first, the WAL at its largest. SQLite's page cache is not readable from outside the process (better-sqlite3 has
 * no sqlite3_status); it is part of the RSS.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { StdioRpc } from './lib/rpc.js';
import { BIN, rssMb, startHttp, stop } from './lib/procs.js';
import { percentile } from './lib/measure.js';
import { row, type Row } from './lib/report.js';
import { Inspector, INSPECT_FLAG } from './lib/inspector.js';
import { sampleArgs } from '../test/sample-args.js';
import { Browser } from '../test/oauth-helpers.js';
import { TOOL_VIEWS } from '../src/catalog/define.js';
import { viewUri } from '../src/surfaces/mcp/apps.js';

const VAULT = 'northwind-logistics';
const REDIRECT = 'http://127.0.0.1:9/callback';
const READS = [
  'stats',
  'list_findings',
  'get_entity',
  'expand_graph',
  'changes_since',
  'search_knowledge',
  'get_transcript',
  'list_tasks',
  'get_brief',
  'list_conflicts',
];
const EXPORTS: [string, Record<string, unknown>][] = [
  ['export_report', { format: 'pdf' }],
  ['export_deck', {}],
];

interface Sample {
  at: number;
  rss: { stdio: number; http: number };
  fds: { stdio: number; http: number };
  heapMb: number;
  walMb: number;
}

const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const fileMb = (path: string) => (existsSync(path) ? statSync(path).size / 2 ** 20 : 0);
const quarter = <T>(xs: T[], q: number) =>
  xs.slice(Math.floor((xs.length * q) / 4), Math.floor((xs.length * (q + 1)) / 4));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`vault-tools ${args[0]} exited ${code}: ${err.slice(-1000)}`)),
    );
  });
}

/** An access and refresh token for the HTTP server, by the whole OAuth flow (DCR, consent form, PKCE). */
async function oauthTokens(url: string, key: string): Promise<{ clientId: string; refresh: string }> {
  const reg = await fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Soak client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      application_type: 'native',
    }),
  });
  const clientId = ((await reg.json()) as { client_id: string }).client_id;
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${url}/oauth/authorize`);
  const params = {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'vaults offline_access',
    state: 's',
    code_challenge_method: 'S256',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
  };
  for (const [k, v] of Object.entries(params)) authorize.searchParams.set(k, v);
  const done = await new Browser().consent(authorize.href, url, { key, vaults: [VAULT] });
  const code = new URL(done.url).searchParams.get('code');
  if (!code) throw new Error(`soak: no OAuth code (${done.status}): ${done.page.slice(0, 300)}`);
  const tokens = (await (
    await tokenRequest(url, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    })
  ).json()) as { refresh_token: string };
  return { clientId, refresh: tokens.refresh_token };
}
const tokenRequest = (url: string, body: Record<string, string>) =>
  fetch(`${url}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams(body),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

/** `tmp`: a directory for the run's two data dirs. */
export async function soakRows(tmp: string, minutes: number): Promise<Row[]> {
  const env = { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_LOG: 'warn' };
  const hostedDir = join(tmp, 'soak-hosted');
  const dir = join(tmp, 'soak-local');
  await cli(['demo', '--data-dir', hostedDir, '--no-serve'], { ...env, VAULT_TOOLS_INDEX: 'off' });
  const hostedKey = readFileSync(join(hostedDir, 'owner.key'), 'utf8').trim();
  const hosted = await startHttp(
    [BIN, 'serve', '--data-dir', hostedDir, '--http', '127.0.0.1:0', '--no-stdio', '--rate-limit', '0', '--no-index'],
    env,
  );
  const remoteEnv = { ...env, VAULT_TOOLS_REMOTE_URL: hosted.url, VAULT_TOOLS_REMOTE_KEY: hostedKey };
  const latencies = new Map<string, { at: number; ms: number }[]>();
  const samples: Sample[] = [];
  // Everything started is stopped, also when a step of the set-up fails.
  let http: Awaited<ReturnType<typeof startHttp>> | undefined;
  let rpc: StdioRpc | undefined;
  let inspector: Inspector | undefined;
  try {
    mkdirSync(dir);
    await cli(['call', 'list_vaults', '--data-dir', dir], env); // makes the store and its owner key
    await cli(['sync', '--data-dir', dir, '--json'], remoteEnv); // the first, full pull
    await cli(['reindex', '--data-dir', dir], env); // vectors now, so the servers' indexers are not the warm-up
    const key = readFileSync(join(dir, 'owner.key'), 'utf8').trim();
    // A sync every 6 s stands for "every 15 minutes" of a week squeezed into minutes.
    const listener = (http = await startHttp(
      [
        BIN,
        'serve',
        '--data-dir',
        dir,
        '--http',
        '127.0.0.1:0',
        '--no-stdio',
        '--rate-limit',
        '0',
        '--sync-every',
        '0.1',
      ],
      remoteEnv,
    ));
    const client = (rpc = new StdioRpc(
      process.execPath,
      [INSPECT_FLAG, BIN, 'serve', '--data-dir', dir, '--key', key],
      env,
    ));
    const heap = (inspector = await Inspector.attach(client.child));
    await client.initialize();
    const views = TOOL_VIEWS.map(viewUri);
    const { clientId, refresh: firstRefresh } = await oauthTokens(listener.url, key);
    let refresh = firstRefresh;
    const started = Date.now();
    const timed = async (name: string, run: () => Promise<unknown>) => {
      const t0 = performance.now();
      await run();
      const list = latencies.get(name) ?? [];
      list.push({ at: Date.now() - started, ms: performance.now() - t0 });
      latencies.set(name, list);
    };
    const overHttp = async (tool: string, args: Record<string, unknown>, bearer = key) => {
      const res = await fetch(`${listener.url}/v1/tools/${tool}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify(args),
      });
      if (res.status !== 200) throw new Error(`${tool} over HTTP: ${res.status} ${(await res.text()).slice(0, 300)}`);
      await res.arrayBuffer();
    };
    const sample = async () => {
      const { usedSize } = (await heap.send('Runtime.getHeapUsage')) as { usedSize: number };
      samples.push({
        at: Date.now() - started,
        rss: { stdio: rssMb(client.pid), http: rssMb(listener.child.pid!) },
        fds: { stdio: fds(client.pid), http: fds(listener.child.pid!) },
        heapMb: usedSize / 2 ** 20,
        walMb: fileMb(join(dir, 'vault-tools.db-wal')),
      });
    };
    const args = (tool: string) => sampleArgs(tool, VAULT);
    const search = args('search_transcripts');
    const withAlternatives = {
      ...search,
      alternatives: ['what the warehouse team said about it', 'the problems people raised'],
    };
    const everyMs = (minutes * 60_000) / 24;
    let nextSample = 0;
    for (let round = 0; Date.now() - started < minutes * 60_000; round++) {
      for (const tool of READS) {
        await timed(`stdio ${tool}`, () => client.call(tool, args(tool)));
        await timed(`http ${tool}`, () => overHttp(tool, args(tool)));
      }
      await timed('stdio search_transcripts', () => client.call('search_transcripts', search));
      await timed('http search_transcripts+alternatives', () => overHttp('search_transcripts', withAlternatives));
      for (const uri of views)
        await timed('stdio resources/read ui://', () => client.request('resources/read', { uri }));
      await timed('stdio render_chart', () => client.call('render_chart', args('render_chart')));
      const [exportTool, exportArgs] = EXPORTS[round % EXPORTS.length]!;
      await timed(`http ${exportTool}`, () => overHttp(exportTool, { vault: VAULT, ...exportArgs }));
      // A task added, then closed (so the open tasks the reads list stay as many as at the start).
      let added = '';
      await timed(
        'stdio add_task',
        async () => (added = String((await client.call('add_task', args('add_task'))).identifier)),
      );
      await timed('stdio update_task', () =>
        client.call('update_task', { vault: VAULT, identifier: added, status: 'done' }),
      );
      await timed('http oauth refresh + call', async () => {
        const t = (await (
          await tokenRequest(listener.url, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refresh })
        ).json()) as { access_token: string; refresh_token: string };
        refresh = t.refresh_token;
        await overHttp('stats', { vault: VAULT }, t.access_token);
      });
      if (Date.now() - started >= nextSample) {
        await sample();
        nextSample += everyMs;
      }
    }
    await sample();
  } finally {
    inspector?.close();
    await rpc?.close();
    if (http) await stop(http.child);
    await hosted.stop();
  }
  return rowsOf(minutes, samples, latencies);
}

function rowsOf(minutes: number, samples: Sample[], latencies: Map<string, { at: number; ms: number }[]>): Row[] {
  const size = `demo vaults pulled from a second serve --http; ${minutes} min, one serve over stdio and one over HTTP on one data dir, ${samples.length} samples`;
  const flat = (metric: string, unit: string, pick: (s: Sample) => number, what: string): Row =>
    row({
      metric,
      value: mean(quarter(samples, 3).map(pick)),
      unit,
      reference: { what: 'in the second quarter (after warm-up)', value: mean(quarter(samples, 1).map(pick)) },
      size: `${size}; ${what}; over time: ${samples.map((s) => pick(s).toFixed(0)).join(' ')}`,
      target: 'flat (last quarter ≤ 1.05× the second)',
      maxRatio: 1.05,
    });
  const rows = [
    flat('soak.stdio.rss', 'MB', (s) => s.rss.stdio, 'RSS of the stdio server, mean of the last quarter'),
    flat(
      'soak.http.rss',
      'MB',
      (s) => s.rss.http,
      'RSS of the HTTP server (syncing every 6 s), mean of the last quarter',
    ),
    flat('soak.stdio.fds', 'fds', (s) => s.fds.stdio, 'open file descriptors of the stdio server'),
    flat('soak.http.fds', 'fds', (s) => s.fds.http, 'open file descriptors of the HTTP server'),
    row({
      metric: 'soak.stdio.heap',
      value: mean(quarter(samples, 3).map((s) => s.heapMb)),
      unit: 'MB',
      reference: { what: 'in the second quarter', value: mean(quarter(samples, 1).map((s) => s.heapMb)) },
      size: `${size}; JS heap in use (garbage included), no collection forced; over time: ${samples.map((s) => s.heapMb.toFixed(0)).join(' ')}`,
    }),
    row({
      metric: 'soak.wal.max',
      value: Math.max(...samples.map((s) => s.walMb)),
      unit: 'MB',
      size: `${size}; the WAL file's size, largest sample; over time: ${samples.map((s) => s.walMb.toFixed(1)).join(' ')}`,
      target: 'checkpointed (≤ 64 MB)',
      maxValue: 64,
    }),
  ];
  for (const [name, list] of [...latencies].sort(([a], [b]) => a.localeCompare(b))) {
    const span = Math.max(...list.map((l) => l.at)) + 1;
    const first = list.filter((l) => l.at < span / 4).map((l) => l.ms);
    const last = list.filter((l) => l.at >= (span * 3) / 4).map((l) => l.ms);
    if (first.length < 3 || last.length < 3) continue;
    rows.push(
      row({
        metric: `soak.${name.replace(/[ +]/g, '.').replace('resources/read.ui://', 'resources_read_ui')}.p99`,
        value: percentile(last, 0.99),
        unit: 'ms',
        reference: { what: 'p99 in the first quarter', value: percentile(first, 0.99) },
        size: `${size}; ${list.length} calls; p50 ${percentile(first, 0.5).toFixed(1)} → ${percentile(last, 0.5).toFixed(1)} ms`,
        target: 'p99 at the end ≤ 1.2× the start',
        maxRatio: 1.2,
      }),
    );
  }
  return rows;
}
