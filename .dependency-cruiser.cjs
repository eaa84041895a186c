/**
 * The layer rules of src/ (issue 20), written once as data and checked on the real import graph by
 * dependency-cruiser (`npm run deps:check`, which also runs the SQL-owner check it cannot do).
 *
 * Layers, bottom to top. A module may import its own layer and any layer below it, never one above.
 * docs/architecture.md describes them; test/unit/layers.test.ts fails on any breach.
 */
const LAYERS = [
  // shared words: principal and access, error codes, vocabulary, REST paths, ids and time; imports nothing of the project
  { name: 'core', paths: ['^src/core/', '^src/(log|time|safe-path|package-info)\\.ts$'] },
  // every domain table, its reads and writes
  { name: 'store', paths: ['^src/store/'] },
  // the vault folder format: its schema, reading, checking and writing folders; knows the store's rows, nothing above
  { name: 'format', paths: ['^src/vault-format/'] },
  // what works on the store: search indexes, rendering and exports, keys
  { name: 'domain', paths: ['^src/search/', '^src/render/', '^src/auth/'] },
  // writing a vault read from a folder into the store, its transcript chunks and word index with it, as sync does
  { name: 'load', paths: ['^src/load/'] },
  // the tools, each declared once
  { name: 'catalog', paths: ['^src/catalog/'] },
  // the single call path (validation, access, errors), and sync, which replays through it
  { name: 'service', paths: ['^src/service/', '^src/sync/'] },
  // MCP, REST, stdio and the command line
  { name: 'surfaces', paths: ['^src/surfaces/', '^src/cli/'] },
];

/** One rule per layer: nothing in it imports a layer above it. */
const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer.name}`,
  comment: `${layer.name} imports only itself and the layers below (${LAYERS.slice(0, i).map((l) => l.name).join(', ') || 'none'})`,
  severity: 'error',
  from: { path: layer.paths },
  to: { path: LAYERS.slice(i + 1).flatMap((l) => l.paths) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'an import circle makes two modules one; break it by moving the shared part down',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'surfaces-not-store',
      comment: 'surfaces and the CLI go through the service, which keeps the access rules; they never read the store',
      severity: 'error',
      from: { path: ['^src/surfaces/', '^src/cli/'] },
      to: { path: '^src/store/' },
    },
  ],
  options: {
    includeOnly: '^src/',
    // `import type` is a dependency of the design too: a type from a higher layer is an upward import.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
