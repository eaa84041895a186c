/**
 * Which processes are serving a data dir right now, so `restore` never swaps the store under one. Every
 * `serve` (and `demo`) writes `running/<pid>.json` in its data dir while it runs and removes it when it
 * stops; a sync holds `sync.lock` (src/sync/index.ts) the same way. An entry counts only while the process it
 * names is the one that wrote it (core/process-alive.ts: same start time and command line): a file left by
 * a `kill -9`, whose pid now belongs to another program, or a pid such as 0 or -1, is ignored and removed,
 * and the caller is told why.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processIdentity, sameProcess } from '../core/process-alive.js';

const RUNNING_DIR = 'running';
const SYNC_LOCK = 'sync.lock';

export interface Holder {
  pid: number;
  /** what it runs, e.g. `vault-tools serve --http 8787` */
  command: string;
  startedAt: string;
  /** processIdentity of the writer (absent in files of older versions) */
  identity?: string;
}

/** Marks the data dir as served by this process until the returned function is called (or the process exits). */
export function holdDataDir(dataDir: string): () => void {
  const dir = join(dataDir, RUNNING_DIR);
  const file = join(dir, `${process.pid}.json`);
  const holder: Holder = {
    pid: process.pid,
    command: ['vault-tools', ...process.argv.slice(2)].join(' '),
    startedAt: new Date().toISOString(),
    identity: processIdentity(process.pid),
  };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  const release = () => {
    process.off('exit', release);
    rmSync(file, { force: true });
  };
  process.on('exit', release);
  return release;
}

export interface Holders {
  /** the live vault-tools processes serving or syncing the data dir, other than this one */
  live: Holder[];
  /** entries not trusted, each with why (removed, except sync.lock, which its next sync takes over) */
  ignored: string[];
}

/** The processes serving or syncing `dataDir`, other than this one, and the stale entries found on the way. */
export function dataDirHolders(dataDir: string): Holders {
  const live: Holder[] = [];
  const ignored: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(join(dataDir, RUNNING_DIR)).filter((n) => n.endsWith('.json'));
  } catch {
    // no folder: nobody has served this data dir since it was made
  }
  for (const name of names) {
    const file = join(dataDir, RUNNING_DIR, name);
    let holder: Partial<Holder>;
    try {
      holder = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>;
      if (!holder || typeof holder !== 'object') throw new Error('not an object');
    } catch {
      holder = {};
    }
    // The pid is the file's name; a file that says otherwise is not one vault-tools wrote.
    const pid = /^\d+\.json$/.test(name) ? Number(name.slice(0, -5)) : NaN;
    if (pid === process.pid) continue;
    const check =
      holder.pid === pid
        ? sameProcess(pid, typeof holder.identity === 'string' ? holder.identity : undefined)
        : {
            live: false as const,
            why: `its pid ${JSON.stringify(holder.pid ?? name)} is not a process id or does not match the file name`,
          };
    if (check.live)
      live.push({
        pid,
        command: String(holder.command ?? 'vault-tools serve'),
        startedAt: String(holder.startedAt ?? ''),
      });
    else {
      ignored.push(`${RUNNING_DIR}/${name}: ${check.why}`);
      rmSync(file, { force: true });
    }
  }
  let lockText: string | undefined;
  try {
    lockText = readFileSync(join(dataDir, SYNC_LOCK), 'utf8').trim();
  } catch {
    // no sync running
  }
  if (lockText !== undefined) {
    const pid = /^\d+$/.test(lockText) ? Number(lockText) : NaN;
    const check = sameProcess(pid, undefined);
    if (pid !== process.pid) {
      if (check.live) live.push({ pid, command: 'vault-tools sync', startedAt: '' });
      else ignored.push(`${SYNC_LOCK}: ${check.why}`);
    }
  }
  return { live, ignored };
}

export const describeHolders = (holders: Holder[]) =>
  holders.map((h) => `pid ${h.pid} (${h.command}${h.startedAt ? `, since ${h.startedAt}` : ''})`).join(', ');
