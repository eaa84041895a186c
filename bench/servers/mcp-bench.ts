/**
 * Bench-only MCP stdio server: what `vault-tools serve --no-index` runs on stdio (the same Service with the
 * whole catalog, the default embedder, serveStdio, the key re-checked on every call), plus two tools that
 * live here, never in the catalog: `bench_noop` validates its empty arguments and returns `{}` (the reference
 * every read tool's latency is compared with), and `bench_fixed_page` returns, without any work, the first
 * list_findings page of VAULT read at start (what an answer of that size costs on the pipe).
 *
 *   node --import tsx bench/servers/mcp-bench.ts DATA_DIR KEY [VAULT]
 */
import { z } from 'zod';
import { authenticate } from '../../src/auth/keys.js';
import { defineTool } from '../../src/catalog/define.js';
import { selectTools } from '../../src/catalog/select.js';
import { createEmbedder } from '../../src/search/embedder/index.js';
import { Service } from '../../src/service/invoke.js';
import { openDb } from '../../src/store/db.js';
import { serveStdio } from '../../src/surfaces/mcp/stdio.js';
import { FIXED_PAGE_TOOL, NOOP_TOOL } from '../lib/cases.js';

const noop = defineTool({
  name: NOOP_TOOL,
  title: 'No-op (bench reference)',
  description: 'Does nothing: the latency floor of a tool call on this server.',
  vaultScoped: false,
  input: {},
  output: z.object({}),
  run: () => ({}),
});

const [dataDir, key, vault] = process.argv.slice(2);
if (!dataDir || !key) throw new Error('usage: mcp-bench.ts DATA_DIR KEY [VAULT]');
const db = openDb(dataDir);
const embedder = createEmbedder();
const principal = authenticate(db, key); // fail at start, like serve
const first = await new Service(db, { dataDir }).invoke('list_findings', vault ? { vault } : {}, principal);
const page = first.ok ? first.data : {};

const fixedPage = defineTool({
  name: FIXED_PAGE_TOOL,
  title: 'Fixed page (bench reference)',
  description: 'Returns a list_findings page read at start, doing no work: the cost of an answer that size.',
  vaultScoped: false,
  input: {},
  output: z.object({}).passthrough(),
  run: () => page,
});

await serveStdio(new Service(db, { dataDir, embedder, tools: [...selectTools({}), noop, fixedPage] }), () =>
  authenticate(db, key),
);
await embedder.close();
db.close();
