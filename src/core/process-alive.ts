/**
 * Whether a pid written in a lock or `running/` file still names the process that wrote it. A pid alone is
 * not enough: a process that died without removing its file leaves a pid the system gives to the next
 * process (a shell, a browser), which would then "hold" the data dir for ever. So the writer also records
 * its identity (processIdentity: start time and command line), and a pid counts only while that identity
 * is the same.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Whether a process with this id runs (EPERM: it does, as another user). */
export function processAlive(pid: number): boolean {
  if (!isPlausiblePid(pid)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A pid a file can name: a whole number above 1 (0, -1 and negatives signal process groups; 1 is init). */
export const isPlausiblePid = (pid: unknown): pid is number =>
  typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 1 && pid < 2 ** 31;

/**
 * What tells this process apart from a later one given the same pid: on Linux its start time (clock ticks
 * since boot, /proc/<pid>/stat field 22) and command line; elsewhere what `ps` says of both. Undefined when the
 * process does not run, or the platform says neither (Windows).
 */
export function processIdentity(pid: number): string | undefined {
  if (!isPlausiblePid(pid)) return undefined;
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name (field 2) is in parentheses and may hold spaces or ')': fields are counted after the last ')'.
      const startTicks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').split('\0').join(' ');
      return `${startTicks} ${cmdline}`;
    } catch {
      return undefined;
    }
  }
  if (process.platform === 'win32') return undefined;
  try {
    const out = execFileSync('ps', ['-o', 'lstart=', '-o', 'command=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return out || undefined;
  } catch {
    return undefined;
  }
}

/** The command line of a running process (Linux and `ps` platforms), for messages and for files of older versions. */
export function processCommand(pid: number): string | undefined {
  const identity = processIdentity(pid);
  if (identity === undefined) return undefined;
  return process.platform === 'linux'
    ? identity.slice(identity.indexOf(' ') + 1)
    : identity.replace(/^\S+ \S+ +\d+ [\d:]+ \d+ /, '');
}

export type Liveness = { live: true } | { live: false; why: string };

/**
 * Whether the process a file names is the one that wrote it: the same identity when the file recorded one;
 * for a file without (written by an older vault-tools), a live process whose command line is a vault-tools
 * one. `why` says, for a message, why an entry is not trusted.
 */
export function sameProcess(pid: unknown, identity: string | undefined): Liveness {
  if (!isPlausiblePid(pid)) return { live: false, why: `pid ${JSON.stringify(pid)} is not a process id` };
  if (!processAlive(pid)) return { live: false, why: `no process ${pid} runs` };
  const now = processIdentity(pid);
  if (now === undefined) return { live: true }; // a platform that cannot tell (Windows): a live pid is trusted
  if (identity !== undefined)
    return now === identity
      ? { live: true }
      : { live: false, why: `process ${pid} is now another program (${describeCommand(pid)})` };
  return looksLikeVaultTools(processCommand(pid) ?? '')
    ? { live: true }
    : { live: false, why: `process ${pid} is not vault-tools (${describeCommand(pid)})` };
}

/** Whether a command line runs vault-tools: its bin, or the script this process itself runs (a checkout's dist/cli). */
function looksLikeVaultTools(command: string): boolean {
  const ownScript = process.argv[1];
  return /vault-tools/.test(command) || (ownScript !== undefined && command.includes(ownScript));
}

const describeCommand = (pid: number) => {
  const c = processCommand(pid) ?? 'unknown';
  return c.length > 80 ? `${c.slice(0, 77)}...` : c;
};
