/**
 * Bench-only MCP stdio server: what `vault-tools serve --no-index` runs on stdio (the same Service with the
 * whole catalog, the default embedder, serveStdio, the key re-checked on every call), plus one extra tool,
 * `bench_noop`, that validates its empty arguments and returns `{}`. The no-op is the reference every read
 * tool's latency is compared with; it lives here, never in the catalog.
 *
 *   node --import tsx bench/servers/mcp-bench.ts DATA_DIR KEY
 */
import { z } from 'zod';
import { authenticate } from '../../src/auth/keys.js';
import { defineTool } from '../../src/catalog/define.js';
import { selectTools } from '../../src/catalog/select.js';
import { createEmbedder } from '../../src/search/embedder/index.js';
import { Service } from '../../src/service/invoke.js';
import { openDb } from '../../src/store/db.js';
import { serveStdio } from '../../src/surfaces/mcp.js';

export const NOOP_TOOL = 'bench_noop';

const noop = defineTool({
  name: NOOP_TOOL,
  title: 'No-op (bench reference)',
  description: 'Does nothing: the latency floor of a tool call on this server.',
  vaultScoped: false,
  input: {},
  output: z.object({}),
  run: () => ({}),
});

const [dataDir, key] = process.argv.slice(2);
if (!dataDir || !key) throw new Error('usage: mcp-bench.ts DATA_DIR KEY');
const db = openDb(dataDir);
const embedder = createEmbedder();
authenticate(db, key); // fail at start, like serve
await serveStdio(new Service(db, { dataDir, embedder, tools: [...selectTools({}), noop] }), () => authenticate(db, key));
await embedder.close();
db.close();
