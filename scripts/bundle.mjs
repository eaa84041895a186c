#!/usr/bin/env node
/**
 * `npm run bundle`: an MCP Bundle (.mcpb) of this install for Claude Desktop's one-click install, packed by the
 * official `@anthropic-ai/mcpb` packer. The bundle holds the built package (bin, dist, fixtures) and its
 * production dependencies copied from this install's node_modules, so the native modules (better-sqlite3,
 * sqlite-vec, resvg) are the ones tested here: the bundle is for this platform and CPU, which the manifest's
 * `compatibility` says, and for every Node line from 22 on (`runtimes.node`).
 *
 * Every native module it carries uses Node-API, which each Node line loads: better-sqlite3 13 ships its prebuilt
 * binaries inside its npm package, as resvg and the embedder's kernel do. So nothing is rebuilt for Claude
 * Desktop's Node; on a Node older than 22 the entry point (bin/vault-tools.js) says which Node it needs and exits.
 * `--node <major>` opens a database with the bundle's better-sqlite3 under that Node line (from the npm registry, scripts/node-version.mjs,
 * cached in .cache/node/) before packing, to check the bundle on the line a user's Claude Desktop runs.
 *
 *   node scripts/bundle.mjs [--out DIR] [--node MAJOR]     (default DIR: build/; default MAJOR: none checked but this Node's)
 *   npm run bundle -- --node 24
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { nodeBin, NODE_VERSIONS } from './node-version.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const fail = (message) => {
  process.stderr.write(`bundle: ${message}\n`);
  process.exit(1);
};
let args;
try {
  ({ values: args } = parseArgs({ options: { out: { type: 'string' }, node: { type: 'string' } } }));
} catch (err) {
  fail(`${err.message}; usage: node scripts/bundle.mjs [--out DIR] [--node MAJOR]`);
}
const OUT = resolve(args.out ?? join(ROOT, 'build'));
const STAGE = join(OUT, 'mcpb-stage');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const ownMajor = Number(process.versions.node.split('.')[0]);
if (args.node !== undefined && !(/^\d+$/.test(args.node) && NODE_VERSIONS[args.node])) {
  fail(
    `--node must be the major version of a supported Node.js line (${Object.keys(NODE_VERSIONS).join(', ')}), not "${args.node}"`,
  );
}
/** The oldest Node line the bundle's better-sqlite3 (13) loads on. */
const MODERN = 22;
if (args.node !== undefined && Number(args.node) < MODERN)
  fail(
    `--node ${args.node}: the bundle's better-sqlite3 needs Node ${MODERN} or newer (Claude Desktop runs a current Node)`,
  );
/** The Node that checks the bundle opens a database: the line --node asks for, else this one when it can. */
const checkMajor = args.node !== undefined ? Number(args.node) : Math.max(ownMajor, MODERN);
const checkBin = checkMajor === ownMajor ? dirname(process.execPath) : nodeBin(checkMajor);

if (!existsSync(join(ROOT, 'dist', 'cli.js'))) {
  process.stderr.write('bundle: dist/ is missing; run `npm run build` first (npm run bundle does)\n');
  process.exit(1);
}

/** The production dependency folders of this install, outermost only (a nested one travels with its parent). */
function productionPackages() {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const dirs = out
    .split('\n')
    .filter((d) => d && d !== ROOT)
    .sort();
  return dirs.filter((d, i) => !dirs.slice(0, i).some((parent) => d.startsWith(parent + sep)));
}

/** The tools the bundle declares, from the catalog (the built CLI prints it). */
function catalogTools() {
  const { tools } = JSON.parse(
    execFileSync(process.execPath, [join(ROOT, 'bin', 'vault-tools.js'), 'tools', '--json'], { encoding: 'utf8' }),
  );
  return tools.map((t) => ({ name: t.name, description: t.description.split(/(?<=\.)\s/)[0] }));
}

function manifest() {
  return {
    manifest_version: '0.3',
    name: pkg.name,
    display_name: 'Vault Tools',
    version: pkg.version,
    description: pkg.description,
    long_description:
      "Reads a consulting engagement's knowledge (entities, evidence, meetings and transcripts, conflicts, calendar, tasks, briefs, mail) from a local SQLite store, offline, and acts on it: charts, xlsx/csv/pdf exports, tasks, meetings, e-mails. Optionally syncs with the hosted Vault Knowledge and Actions Service.",
    author: { name: 'vault-tools' },
    license: pkg.license,
    keywords: pkg.keywords,
    server: {
      type: 'node',
      entry_point: 'bin/vault-tools.js',
      mcp_config: {
        command: 'node',
        args: ['${__dirname}/bin/vault-tools.js', 'serve'],
        // Environment, not flags: an option the user leaves empty becomes an empty variable, which
        // vault-tools reads as unset (the platform data dir, no remote, no background sync).
        env: {
          VAULT_TOOLS_HOME: '${user_config.data_dir}',
          VAULT_TOOLS_REMOTE_URL: '${user_config.remote_url}',
          VAULT_TOOLS_REMOTE_KEY: '${user_config.remote_key}',
          VAULT_TOOLS_SYNC_EVERY: '${user_config.sync_every_minutes}',
        },
      },
    },
    tools: catalogTools(),
    compatibility: {
      platforms: [process.platform],
      // Node-API modules only (better-sqlite3 13): every supported line from 22 on.
      runtimes: { node: `>=${MODERN}.0.0` },
    },
    user_config: {
      data_dir: {
        type: 'directory',
        title: 'Data folder',
        description:
          'Where the store, charts and exports live. Empty: the platform user data folder (~/.local/share/vault-tools on Linux).',
        required: false,
      },
      remote_url: {
        type: 'string',
        title: 'Hosted service URL',
        description: 'Optional: the base URL of the Vault Knowledge and Actions Service to sync with (https://…).',
        required: false,
      },
      remote_key: {
        type: 'string',
        title: 'Hosted service key',
        description: 'Optional: your personal key for that service. Stored by Claude Desktop; never printed.',
        required: false,
        sensitive: true,
      },
      sync_every_minutes: {
        type: 'number',
        title: 'Sync every (minutes)',
        description: 'With a hosted service URL and key: sync in the background every N minutes (0 or empty: never).',
        required: false,
        min: 0,
        max: 10080,
      },
    },
  };
}

/** The bundle's better-sqlite3 opens a database under Node `bin` before it is packed. */
function checkSqliteOn(bin) {
  const check = `const D=require('better-sqlite3');const v=new D(':memory:').prepare('select sqlite_version() v').get().v;process.stdout.write(process.version+' (SQLite '+v+')')`;
  const said = execFileSync(join(bin, 'node'), ['-e', check], { cwd: STAGE, encoding: 'utf8' });
  process.stderr.write(`bundle: better-sqlite3 opens a database on Node ${said}\n`);
}

/** better-sqlite3's binaries for other platforms than this one (the bundle is for one platform and CPU). */
function dropOtherPrebuilds() {
  const dir = join(STAGE, 'node_modules', 'better-sqlite3', 'prebuilds');
  if (!existsSync(dir)) return;
  const own = [`${process.platform}-${process.arch}.node`, `linuxmusl-${process.arch}.node`];
  for (const file of readdirSync(dir)) if (!own.includes(file)) rmSync(join(dir, file), { force: true });
}

const IGNORE = [
  // Build inputs of the native modules: the compiled .node files are all that runs.
  'node_modules/better-sqlite3/deps/',
  'node_modules/better-sqlite3/src/',
  'node_modules/**/*.d.ts',
  'node_modules/**/*.md',
  'node_modules/**/test/',
];

rmSync(STAGE, { recursive: true, force: true });
mkdirSync(STAGE, { recursive: true });
for (const part of ['bin', 'dist', 'fixtures', 'package.json', 'README.md'])
  cpSync(join(ROOT, part), join(STAGE, part), { recursive: true });
// The native matrix kernel, when this install built it (scripts/build-native.mjs): the embedder runs about twice as fast with it.
const nativeKernel = join('native', 'vault-tools-matmul.node');
if (existsSync(join(ROOT, nativeKernel))) cpSync(join(ROOT, nativeKernel), join(STAGE, nativeKernel));
for (const dir of productionPackages())
  cpSync(dir, join(STAGE, relative(ROOT, dir)), { recursive: true, dereference: true });
dropOtherPrebuilds();
checkSqliteOn(checkBin);
writeFileSync(join(STAGE, 'manifest.json'), `${JSON.stringify(manifest(), null, 2)}\n`);
writeFileSync(join(STAGE, '.mcpbignore'), `${IGNORE.join('\n')}\n`);

const mcpb = join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
const file = join(OUT, `${pkg.name}-${pkg.version}-${process.platform}-${process.arch}.mcpb`);
execFileSync(process.execPath, [mcpb, 'validate', join(STAGE, 'manifest.json')], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
execFileSync(process.execPath, [mcpb, 'pack', STAGE, file], { stdio: ['ignore', 'ignore', 'inherit'] });
rmSync(STAGE, { recursive: true, force: true });
process.stdout.write(`${file}\n`);
