/**
 * Whether an MCP client started this process over stdio, decided from what stdin and stdout are. A client
 * (Claude Desktop, Claude Code, an IDE agent) writes requests into a pipe on stdin and reads answers from a
 * pipe on stdout, and keeps stderr in its log files. A person runs the command at a terminal, or from a script
 * or an IDE task whose stdin is a terminal, /dev/null or a closed pipe, and whose stdout is a terminal, a file or
 * /dev/null: none of those is a conversation. (A stdin pipe that ends before any message came is decided
 * later, when it ends: cli/stdin-end.ts.)
 */
import { fstatSync } from 'node:fs';

/** Whether file descriptor `fd` is a pipe or a socket (what a client connects), not a terminal, file or device. */
function isPipe(fd: number): boolean {
  try {
    const s = fstatSync(fd);
    return s.isFIFO() || s.isSocket();
  } catch {
    return false; // closed: nobody is there
  }
}

export function startedByClient(): boolean {
  if (process.stdin.isTTY || process.stdout.isTTY) return false;
  return isPipe(0) && isPipe(1);
}
