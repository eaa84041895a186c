/**
 * Which Node.js release lines vault-tools supports, and the one-line notice `demo` and `doctor` give on a line that
 * reached its end of life. package.json `engines` names the same lines (test/unit/node-support.test.ts holds them
 * equal), and bin/vault-tools.js refuses a Node older than them before anything loads; CI runs the suite on the newest
 * LTS and the installed package on every line (scripts/node-version.mjs, test/e2e/package.test.ts).
 */

/** End of life of each release line, from the Node.js release schedule (odd lines: two months after the next even one). */
const END_OF_LIFE: Record<number, string> = {
  18: '2025-04-30',
  19: '2023-06-01',
  20: '2026-04-30',
  21: '2024-06-01',
  22: '2027-04-30',
  23: '2025-06-01',
  24: '2028-04-30',
  25: '2026-06-01',
  26: '2029-04-30',
};

/** The release lines vault-tools is tested on, oldest first. */
export const TESTED_NODE_LINES = [22, 24, 26] as const;

/**
 * The notice for a Node whose line has ended (on `now`), or undefined while it is maintained. Lines newer than the
 * table are not called ended: a schedule this code does not know yet says nothing about them.
 */
export function endOfLifeNotice(version = process.versions.node, now = new Date()): string | undefined {
  const line = Number(version.replace(/^v/, '').split('.')[0]);
  const end = END_OF_LIFE[line] ?? (line < 18 ? '2025-04-30' : undefined);
  if (!end || now < new Date(`${end}T00:00:00Z`)) return undefined;
  const current = TESTED_NODE_LINES.filter((l) => END_OF_LIFE[l]! > now.toISOString().slice(0, 10));
  const lines =
    current.length > 1
      ? `${current.slice(0, -1).join(', ')} or ${current.at(-1)}`
      : String(current[0] ?? 'a maintained release');
  return `vault-tools: Node.js ${version.replace(/^v/, '')} reached its end of life on ${end} and gets no security fixes; vault-tools still runs on it, but install Node.js ${lines} (supported and tested).`;
}

/** `demo`: the notice on stderr (stdout may be MCP's or JSON), once, when this Node's line has ended. */
export function noticeEndOfLife(): void {
  const notice = endOfLifeNotice();
  if (notice) process.stderr.write(`${notice}\n`);
}
