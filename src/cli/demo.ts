import type { Command } from 'commander';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createKey, ensureOwnerKey, isActiveKey } from '../auth/keys.js';
import { readVaultDir } from '../vault-format/read.js';
import { loadFixture, type LoadResult } from '../load/load.js';
import { describeCounts } from '../vault-format/summary.js';
import { describeWork } from '../load/target.js';
import { FIXTURES_DIR } from '../package-info.js';
import { hasVectorExtension, vectorExtensionError, type Store } from '../service/open.js';
import { openStore, userDataDir } from './context.js';
import { clientSnippet, DEMO_SERVER_NAME, shellCommand } from './mcp-config.js';
import { countPendingChunks, embedPendingChunks } from './embed-now.js';
import { createEmbedder } from '../search/embedder/index.js';
import { useShippedVectors } from '../search/shipped-vectors.js';
import { addServeOptions, serveStore, type ServeOptions } from './serve.js';
import { noticeEndOfLife } from './node-support.js';
import { startedByClient } from './client-started.js';

const DEMO_KEYS_FILE = 'demo-keys.json';

/** The demo's own data dir, so a demo never touches a user's real store. */
export function demoDataDir(option?: string): string {
  return option ?? join(process.env.VAULT_TOOLS_HOME ?? userDataDir(), 'demo');
}

/**
 * Loads every shipped fixture vault (a no-op for those already loaded today from the same files). A demo
 * vault reloaded on a later day drops what was done in it locally: the demo store is a playground.
 */
export function loadDemoVaults(db: Store): LoadResult[] {
  return readdirSync(FIXTURES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(FIXTURES_DIR, d.name, 'vault.json')))
    .map((d) =>
      loadFixture(db, readVaultDir(join(FIXTURES_DIR, d.name)), { origin: 'fixture', discardLocalWork: true }),
    );
}

interface DemoKey {
  label: string;
  key: string;
}

/**
 * One member key per demo vault, kept in the demo dir so every run can show them (a real store never
 * keeps key strings; the demo dir holds only fixture data).
 */
function demoMemberKeys(db: Store, dir: string, vaults: LoadResult[]): DemoKey[] {
  const file = join(dir, DEMO_KEYS_FILE);
  const saved: DemoKey[] = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoKey[]) : [];
  const keys = vaults.map((v) => {
    const label = `member, ${v.name} only`;
    const known = saved.find((k) => k.label === label && isActiveKey(db, k.key));
    return (
      known ?? {
        label,
        key: createKey(db, { name: `demo member (${v.vaultId})`, role: 'member', vaults: [v.vaultId] }).key,
      }
    );
  });
  writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
  return keys;
}

/**
 * The demo vaults' vectors ship with the package (search/shipped-vectors.ts): stored now, without loading the
 * model, so the demo answers by meaning from its first search however it was started. Chunks without a shipped
 * vector (another embedder) are embedded now in the foreground; a demo an MCP client started over stdio must
 * answer `initialize` at once, so there serve's background indexer embeds them, and a search answered by
 * words in the meantime says so. Returns the line that says what happened.
 */
async function embedDemoVaults(
  db: Store,
  dir: string,
  opts: { index: boolean; clientWaits: boolean },
): Promise<string> {
  const reindex = `vault-tools reindex --data-dir ${JSON.stringify(dir)}`;
  if (!opts.index || process.env.VAULT_TOOLS_INDEX === 'off')
    return `Search: by words until the vector index is built (indexing is off): run \`${reindex}\``;
  if (!hasVectorExtension(db)) return `Search: by words only (sqlite-vec did not load: ${vectorExtensionError()})`;
  const shipped = await shippedVectorsFor(db);
  if (opts.clientWaits) {
    const pending = await countPendingChunks(db);
    if (pending)
      return `Search: by words until the background indexer has embedded the ${pending} transcript chunks (seconds), then by meaning too`;
  }
  const r = await embedPendingChunks(db, { label: 'demo: embedding the transcripts', force: false });
  const work = [
    shipped ? `${shipped} chunk vectors shipped with the demo` : '',
    r.embedded + r.reused ? `${r.embedded} chunks embedded, ${r.reused} reused, in ${r.seconds.toFixed(1)} s` : '',
  ]
    .filter(Boolean)
    .map((w) => `; ${w}`)
    .join('');
  return `Search: words and meaning (every transcript chunk has its vector${work}; ${r.embedderInfo})`;
}

/**
 * The demo vaults' shipped vectors (search/shipped-vectors.ts) stored for the configured embedder's chunks:
 * a fresh demo store needs no model to answer by meaning. An embedder without shipped vectors (an endpoint)
 * embeds as before. Returns how many chunks got one.
 */
async function shippedVectorsFor(db: Store): Promise<number> {
  const embedder = createEmbedder();
  try {
    return useShippedVectors(db, { id: embedder.id, dims: embedder.dims });
  } catch {
    return 0; // an endpoint embedder knows its id and dims only after its first answer
  } finally {
    await embedder.close();
  }
}

export function register(program: Command): void {
  addServeOptions(
    program
      .command('demo')
      .description(
        'load the shipped fixture vaults into a demo data dir, print the demo keys, then serve exactly as `serve` does',
      ),
  )
    .option('--data-dir <dir>', 'data directory (default: a demo dir of its own)')
    .option('--no-serve', 'load and print, then exit')
    .action(async (opts: ServeOptions & { serve: boolean }) => {
      noticeEndOfLife();
      // Absolute: the client entries printed below start the server from a folder of the client's own.
      const dir = resolve(demoDataDir(opts.dataDir));
      const db = openStore(dir, opts.dataDir ? '--data-dir' : 'the demo default', { create: true });
      const loaded = loadDemoVaults(db);
      process.stderr.write(
        [
          `vault-tools demo: ${dir}`,
          ...loaded.map(
            (r) =>
              `  ${r.skipped ? 'up to date' : 'loaded'}: "${r.name}" (${r.vaultId}): ${describeCounts(r.counts)}${r.discarded ? `; discarded the local work of the earlier copy: ${describeWork(r.discarded)}` : ''}`,
          ),
          '',
        ].join('\n'),
      );
      const clientWaits = opts.serve && opts.stdio && !process.stdin.isTTY;
      const search = await embedDemoVaults(db, dir, { index: opts.index, clientWaits });
      const owner = ensureOwnerKey(db, dir);
      const members = demoMemberKeys(db, dir, loaded);
      const demoArgs = ['demo', ...(opts.dataDir ? ['--data-dir', dir] : [])];
      const lines = [
        search,
        'Demo keys (this demo store only):',
        `  manager, all vaults: ${owner.key}`,
        ...members.map((k) => `  ${k.label}: ${k.key}`),
        'Claude Desktop (claude_desktop_config.json):',
        clientSnippet('claude-desktop', demoArgs, DEMO_SERVER_NAME),
        `Claude Code: ${clientSnippet('claude-code', demoArgs, DEMO_SERVER_NAME)}`,
        `Try: ${shellCommand(['call', 'stats', '--vault', loaded[0]?.vaultId ?? '<vault>', '--data-dir', dir])}`,
      ];
      const printKeys = () => process.stderr.write(`${lines.join('\n')}\n`);
      // A client that starts the demo keeps its stderr in log files: the keys are for a person. A client is a
      // pipe on stdin and one on stdout (client-started.ts); a stdin that then ends with nothing said was not one.
      if (clientWaits && !process.stderr.isTTY && startedByClient()) {
        process.stderr.write(
          `${search}\nDemo keys: not printed, as an MCP client started this demo (its log files keep stderr); run \`${shellCommand([...demoArgs, '--no-serve'])}\` in a terminal to see them.\n`,
        );
        return void (await serveStore(db, dir, { ...opts, key: opts.key ?? owner.key, onNoClient: printKeys }));
      }
      printKeys();
      if (!opts.serve) return void db.close();
      if (process.stdin.isTTY && !opts.http) {
        process.stderr.write(
          'stdin is a terminal, so there is no MCP client to serve: add --http 8787 for the REST API, or start it from a client.\n',
        );
        return void db.close();
      }
      await serveStore(db, dir, { ...opts, key: opts.key ?? owner.key });
    });
}
