/** MCP progress notifications for a tool's progress reports. */
import type { ServerNotification } from '@modelcontextprotocol/server';

/** At most one progress notification per this many ms (about 10 a second), plus the final one. */
const PROGRESS_INTERVAL_MS = 100;

/**
 * A tool's progress reports as MCP notifications/progress, only when the client asked for them (a
 * progressToken in the call's _meta). Throttled: an export reports every page of rows, which for a fast
 * writer is far more often than a client can show. The first report and the one that reaches the total
 * always go out; `progress` only ever increases, as the protocol requires.
 */
export function progressNotifier(
  token: string | number | undefined,
  send: (notification: ServerNotification) => Promise<void>,
): ((done: number, total?: number, message?: string) => void) | undefined {
  if (token === undefined) return undefined;
  let lastAt = -Infinity;
  let lastDone = -Infinity;
  return (done, total, message) => {
    if (done <= lastDone) return;
    const now = performance.now();
    const final = total !== undefined && done >= total;
    if (!final && now - lastAt < PROGRESS_INTERVAL_MS) return;
    lastAt = now;
    lastDone = done;
    const params = {
      progressToken: token,
      progress: done,
      ...(total !== undefined ? { total } : {}),
      ...(message ? { message } : {}),
    };
    // A notification that cannot be sent (the client went away) must not fail the tool.
    send({ method: 'notifications/progress', params }).catch(() => {});
  };
}
