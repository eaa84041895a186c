/**
 * A bare JSON-RPC client for an MCP server over stdio: newline-delimited messages, requests matched to
 * answers by id. Thinner than the SDK client (which validates every result against the tool's output
 * schema), so tool latencies measure the server and the pipe, not client-side validation.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

export const INITIALIZE = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'vault-tools-bench', version: '0' },
};

export class StdioRpc {
  readonly child: ChildProcessWithoutNullStreams;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private stderr = '';

  constructor(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
    this.child.stderr.on('data', (d) => (this.stderr = (this.stderr + d).slice(-4000)));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const msg = JSON.parse(line) as { id?: number; result?: unknown; error?: { message: string } };
      const w = msg.id === undefined ? undefined : this.waiting.get(msg.id);
      if (!w) return;
      this.waiting.delete(msg.id!);
      if (msg.error) w.reject(new Error(msg.error.message));
      else w.resolve(msg.result);
    });
    this.child.once('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`server exited (${code}): ${this.stderr}`));
      this.waiting.clear();
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  async initialize(): Promise<void> {
    await this.request('initialize', INITIALIZE);
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }

  /** A tool call; a tool error (isError) fails, so a bench never times error paths by mistake. */
  async call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = (await this.request('tools/call', { name, arguments: args })) as {
      isError?: boolean;
      content: { text: string }[];
      structuredContent?: Record<string, unknown>;
    };
    if (r.isError) throw new Error(`${name} failed: ${r.content[0]?.text}`);
    return r.structuredContent ?? {};
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
