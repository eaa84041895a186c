/** Child processes for the bench: the built CLI, servers that print their URL, RSS from /proc, peak RSS of a run. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './synth.js';
import { sleep } from './measure.js';

/** The CLI under test; VAULT_TOOLS_BENCH_BIN points at another build (e.g. a copy from before a change) to compare. */
export const BIN = process.env.VAULT_TOOLS_BENCH_BIN ?? join(ROOT, 'bin', 'vault-tools.js');
/** Runs a TypeScript entry of bench/ with tsx's loader (the bench-only servers). */
export const TSX = ['--import', 'tsx'];

/** Starts a server that prints `http://127.0.0.1:PORT` on stderr; resolves with its URL. */
export async function startHttp(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${err.slice(-2000)}`)));
  });
  return { url, child, stop: () => stop(child) };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function status(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

/** Resident set size of a live process, MB (Linux). */
export const rssMb = (pid: number) => status(pid, 'VmRSS');

/** CPU time used so far by a process, in clock ticks (Linux /proc/PID/stat utime + stime). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Waits until the process has used no CPU for `quietMs` (background start-up work done), at most `maxMs`. */
export async function waitIdle(pid: number, quietMs = 1500, maxMs = 120_000): Promise<void> {
  const t0 = Date.now();
  let last = cpuTicks(pid);
  let quietSince = Date.now();
  while (Date.now() - t0 < maxMs) {
    await sleep(250);
    const now = cpuTicks(pid);
    if (now - last > 1) quietSince = Date.now(); // a tick or two is timers, not work
    last = now;
    if (Date.now() - quietSince >= quietMs) return;
  }
}

/** Runs `node args` to completion: wall time, peak RSS (GNU time when present, else sampled VmHWM) and output. */
export async function runMeasured(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ seconds: number; peakMb: number; stdout: string; stderr: string; status: number | null }> {
  if (existsSync('/usr/bin/time')) {
    const t0 = performance.now();
    const r = spawnSync('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, ...args], {
      encoding: 'utf8',
      env,
      maxBuffer: 64 << 20,
    });
    const seconds = (performance.now() - t0) / 1000;
    const kb = /maxrss_kb=(\d+)\s*$/.exec(r.stderr)?.[1];
    return { seconds, peakMb: Number(kb) / 1024, stdout: r.stdout, stderr: r.stderr, status: r.status };
  }
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { env });
  let stdout = '';
  let stderr = '';
  let peakMb = 0;
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setInterval(() => {
    try {
      peakMb = Math.max(peakMb, status(child.pid!, 'VmHWM'));
    } catch {
      /* exited */
    }
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(timer);
  return { seconds: (performance.now() - t0) / 1000, peakMb, stdout, stderr, status: code };
}
