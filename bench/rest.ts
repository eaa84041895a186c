/**
 * `npm run bench:rest`: requests/second of `POST /v1/tools/stats` on `vault-tools serve --http` against a
 * bare node:http server answering a fixed JSON body, both in their own process, loaded by autocannon
 * with the same connections and duration in one run. Prints both and the ratio.
 */
import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '..', 'bin', 'vault-tools.js');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);

const BARE = `
const body = JSON.stringify({ data: { vault: { id: 'northwind-logistics', name: 'Northwind Logistics' }, entities: { total: 72 } } });
require('node:http').createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }); res.end(body); });
}).listen(0, '127.0.0.1', function () { process.stderr.write('listening http://127.0.0.1:' + this.address().port + '\\n'); });
`;

function started(child: ChildProcess): Promise<string> {
  return new Promise((done, fail) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) done(m[1]!);
    });
    child.once('exit', (code) => fail(new Error(`exited ${code}: ${err}`)));
  });
}

async function load(url: string, headers: Record<string, string>): Promise<{ rps: number; p50: number; p99: number; errors: number; non2xx: number }> {
  const r = await autocannon({ url, method: 'POST', headers, body: JSON.stringify({ vault: 'northwind-logistics' }), connections: CONNECTIONS, duration: DURATION });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

const dir = mkdtempSync(join(tmpdir(), 'vt-bench-rest-'));
const children: ChildProcess[] = [];
try {
  execFileSync(process.execPath, [BIN, 'demo', '--data-dir', dir, '--no-serve'], { stdio: 'ignore' });
  const key = readFileSync(join(dir, 'owner.key'), 'utf8').trim();
  const ours = spawn(process.execPath, [BIN, 'serve', '--data-dir', dir, '--http', '127.0.0.1:0', '--no-stdio', '--rate-limit', '0', '--no-index'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const bare = spawn(process.execPath, ['-e', BARE], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(ours, bare);
  const [oursUrl, bareUrl] = await Promise.all([started(ours), started(bare)]);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  await load(`${oursUrl}/v1/tools/stats`, headers); // warm-up, discarded
  const a = await load(`${oursUrl}/v1/tools/stats`, headers);
  const b = await load(`${bareUrl}/`, headers);
  const line = (name: string, r: typeof a) =>
    `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors}  non-2xx ${r.non2xx}`;
  process.stdout.write(
    [
      `autocannon: ${CONNECTIONS} connections, ${DURATION} s each, loopback, one run`,
      line('vault-tools POST /v1/tools/stats', a),
      line('bare node:http fixed JSON', b),
      `ratio: ${((a.rps / b.rps) * 100).toFixed(1)}% of the bare server`,
    ].join('\n') + '\n',
  );
} finally {
  for (const c of children) c.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
