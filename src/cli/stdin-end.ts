/**
 * Why `serve` (or `demo`) stops serving MCP on stdio, in words: stdin reaching its end is the normal way an MCP
 * client says goodbye, but stdin already closed at start (`< /dev/null`, a launcher giving no input, a closed
 * pipe) looks the same to the server, and "shutting down" alone left that person guessing.
 */
import { log } from '../log.js';

/** How stdin ended: the client said goodbye, or nothing ever came (no client was there). */
export type StdinEnd = 'client closed' | 'never connected';

/**
 * Starts watching stdin. The function returned, called once the stdio server has stopped, logs why if stdin
 * ended (`alsoHttp`: a REST listener keeps serving) and says how it ended; undefined when a signal stopped it.
 */
export function watchStdinEnd(): (alsoHttp: boolean) => StdinEnd | undefined {
  let readBeforeEnd: number | undefined;
  const ended = () => {
    // fs.ReadStream (a file such as /dev/null) and net.Socket (a pipe) both count the bytes they read.
    readBeforeEnd ??= (process.stdin as unknown as { bytesRead?: number }).bytesRead ?? 0;
  };
  process.stdin.once('end', ended);
  process.stdin.once('close', ended);
  return (alsoHttp) => {
    if (readBeforeEnd === undefined) return undefined;
    if (readBeforeEnd > 0) {
      log.info('the MCP client closed stdin: shutting down');
      return 'client closed';
    }
    log.warn(closedFromTheStart(alsoHttp));
    return 'never connected';
  };
}

// With a listener, stdin that never carried a message means a person (a script, an IDE task, `&`, `< /dev/null`)
// started the server for HTTP: stopping it then would leave them a dead port and no reason.
const closedFromTheStart = (alsoHttp: boolean) =>
  'stdin is closed (it ended before any MCP message came: it is /dev/null, a closed pipe, or nothing was connected to it), ' +
  (alsoHttp
    ? 'so no MCP client started this: MCP over stdio is off, and the HTTP listener keeps serving until stopped (Ctrl-C, SIGINT or SIGTERM); --no-stdio starts it that way. For'
    : 'so there is nothing to read MCP messages from: the stdio server stops. To serve HTTP only, use --http [HOST:]PORT --no-stdio; for') +
  ' MCP over stdio, let an MCP client (Claude Desktop, Claude Code) start vault-tools.';
