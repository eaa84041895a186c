/**
 * MCP over stdio: one connection on stdin/stdout through the SDK's `serveStdio`, which lets the client's opening
 * pick the era (2026-07-28 `server/discover`, or the 2025 `initialize` handshake) and pins one server from the
 * factory for the connection. Over-long lines are answered, and the process ends cleanly when the client goes.
 */
import { ProtocolErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { serveStdio as serveMcpStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Principal } from '../../core/principal.js';
import { log } from '../../log.js';
import type { Service } from '../../service/invoke.js';
import { LineLimit, MAX_STDIO_LINE_BYTES } from '../stdio-lines.js';
import { createMcpServer } from './server.js';

/** Serves MCP on stdin/stdout until stdin closes; resolves when the server has shut down. */
export async function serveStdio(service: Service, principal: () => Principal): Promise<void> {
  const limit = `${MAX_STDIO_LINE_BYTES / 1024 / 1024} MiB (${MAX_STDIO_LINE_BYTES} bytes)`;
  // An over-long line is answered, not fatal: the client learns why its request failed, and the next one is served.
  const input = new LineLimit(
    MAX_STDIO_LINE_BYTES,
    ({ bytes, id }) => {
      log.warn(
        `refused a stdin message of ${bytes} bytes${id === undefined ? '' : ` (request id ${JSON.stringify(id)})`}: one message may be at most ${limit}`,
      );
      const message = `Invalid Request: the message is ${bytes} bytes, over the limit of ${limit} per line; it was not read.`;
      // JSON-RPC answers with id null when the request's id could not be read.
      void transport.send({
        jsonrpc: '2.0',
        id: id ?? null,
        error: { code: ProtocolErrorCode.InvalidRequest, message },
      } as unknown as JSONRPCMessage);
    },
    ({ problem, id }) => {
      // Refused as /v1/mcp and REST refuse it: the same sentence, before the SDK walks the message.
      void transport.send({
        jsonrpc: '2.0',
        id: id ?? null,
        error: { code: ProtocolErrorCode.InvalidRequest, message: `Invalid Request: ${problem}` },
      } as unknown as JSONRPCMessage);
    },
  );
  // The transport's own buffer only ever holds one line within our limit; its size check never fires.
  const transport = new StdioServerTransport(input, process.stdout, { maxBufferSize: 2 * MAX_STDIO_LINE_BYTES });
  process.stdin.pipe(input);
  // Lines that are not JSON-RPC (and other protocol slips) would be dropped in silence; say what was dropped.
  const handle = serveMcpStdio(() => createMcpServer(service, principal), {
    transport,
    onerror: (err) => log.warn(`MCP stdio: ${err.message.slice(0, 500)}`),
  });
  log.info('MCP server ready on stdio');
  await new Promise<void>((resolve) => {
    let stopping = false;
    const release = () => {
      // Stop reading stdin, or its open pipe keeps the process alive after the server is gone.
      process.stdin.unpipe(input);
      process.stdin.pause();
      resolve();
    };
    const stop = () => {
      if (stopping) return;
      stopping = true;
      process.stdin.off('end', stop);
      process.stdin.off('close', stop);
      void handle.close().finally(release);
    };
    // The transport closing when nobody asked for it means it gave up on its input: end with a word and an
    // error status, never fall silent. serveStdio set its own onclose; ours runs after it.
    const entryOnClose = transport.onclose;
    transport.onclose = () => {
      entryOnClose?.();
      if (stopping) return;
      stopping = true;
      if (input.readableEnded || process.stdin.readableEnded) {
        release(); // the client closed stdin: the ordinary end
        return;
      }
      log.error('the MCP stdio transport closed unexpectedly (see the messages above); shutting down');
      process.exitCode = 1;
      release();
    };
    // The client quitting closes our stdin: exit then, never linger as an orphan.
    process.stdin.on('end', stop);
    process.stdin.on('close', stop);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
