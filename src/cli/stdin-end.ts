/**
 * Why `serve` (or `demo`) stops serving MCP on stdio, in words: stdin reaching its end is the normal way an MCP
 * client says goodbye, but stdin already closed at start (`< /dev/null`, a launcher giving no input, a closed
 * pipe) looks the same to the server, and "shutting down" alone left that person guessing.
 */
import { log } from '../log.js';

/**
 * Starts watching stdin. The function returned, called once the stdio server has stopped, logs why if stdin
 * ended (`alsoHttp`: a REST listener stops with it) and says whether it did; a signal stops it otherwise.
 */
export function watchStdinEnd(): (alsoHttp: boolean) => boolean {
  let readBeforeEnd: number | undefined;
  const ended = () => {
    // fs.ReadStream (a file such as /dev/null) and net.Socket (a pipe) both count the bytes they read.
    readBeforeEnd ??= (process.stdin as unknown as { bytesRead?: number }).bytesRead ?? 0;
  };
  process.stdin.once('end', ended);
  process.stdin.once('close', ended);
  return (alsoHttp) => {
    if (readBeforeEnd === undefined) return false;
    if (readBeforeEnd > 0) log.info('the MCP client closed stdin: shutting down');
    else log.warn(closedFromTheStart(alsoHttp));
    return true;
  };
}

const closedFromTheStart = (alsoHttp: boolean) =>
  'stdin is closed (it ended before any MCP message came: it is /dev/null, a closed pipe, or nothing was connected to it), ' +
  `so there is nothing to read MCP messages from: the stdio server stops${alsoHttp ? ', and the HTTP listener with it' : ''}. ` +
  'To serve HTTP only, use --http [HOST:]PORT --no-stdio; for MCP over stdio, let an MCP client (Claude Desktop, Claude Code) start vault-tools.';
