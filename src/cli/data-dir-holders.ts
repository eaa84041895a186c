/**
 * Which processes are serving a data dir right now, so `restore` never swaps the store under one. Every
 * `serve` (and `demo`) writes `running/<pid>.json` in its data dir while it runs and removes it when it
 * stops; a file left by a process that no longer runs (a `kill -9`, a crash) is ignored and removed. A sync
 * holds `sync.lock` (src/sync/index.ts) the same way.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../core/process-alive.js';

const RUNNING_DIR = 'running';
const SYNC_LOCK = 'sync.lock';

export interface Holder {
  pid: number;
  /** what it runs, e.g. `vault-tools serve --http 8787` */
  command: string;
  startedAt: string;
}

/** Marks the data dir as served by this process until the returned function is called (or the process exits). */
export function holdDataDir(dataDir: string): () => void {
  const dir = join(dataDir, RUNNING_DIR);
  const file = join(dir, `${process.pid}.json`);
  const holder: Holder = { pid: process.pid, command: ['vault-tools', ...process.argv.slice(2)].join(' '), startedAt: new Date().toISOString() };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  const release = () => {
    process.off('exit', release);
    rmSync(file, { force: true });
  };
  process.on('exit', release);
  return release;
}

/** The live processes serving or syncing `dataDir`, other than this one. */
export function dataDirHolders(dataDir: string): Holder[] {
  const found: Holder[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(join(dataDir, RUNNING_DIR)).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    // no folder: nobody has served this data dir since it was made
  }
  for (const name of names) {
    const file = join(dataDir, RUNNING_DIR, name);
    let holder: Holder;
    try {
      holder = JSON.parse(readFileSync(file, 'utf8')) as Holder;
    } catch {
      holder = { pid: Number(name.replace('.json', '')), command: 'vault-tools serve', startedAt: '' };
    }
    if (holder.pid === process.pid) continue;
    if (processAlive(holder.pid)) found.push(holder);
    else rmSync(file, { force: true });
  }
  try {
    const pid = Number(readFileSync(join(dataDir, SYNC_LOCK), 'utf8'));
    if (pid && pid !== process.pid && processAlive(pid)) found.push({ pid, command: 'vault-tools sync', startedAt: '' });
  } catch {
    // no sync running
  }
  return found;
}

export const describeHolders = (holders: Holder[]) => holders.map((h) => `pid ${h.pid} (${h.command}${h.startedAt ? `, since ${h.startedAt}` : ''})`).join(', ');
