#!/usr/bin/env node
/**
 * `npm run bundle`: an MCP Bundle (.mcpb) of this install for Claude Desktop's one-click install, packed by the
 * official `@anthropic-ai/mcpb` packer. The bundle holds the built package (bin, dist, fixtures) and its
 * production dependencies copied from this install's node_modules, so the native modules (better-sqlite3,
 * sqlite-vec, resvg) are the ones built and tested here: the bundle is for this platform, CPU and Node line,
 * which the manifest's `compatibility` says (`runtimes.node`: the range of the Node line better-sqlite3 was built for).
 *
 * better-sqlite3 is the one module built per Node line (the embedder's kernel and resvg use Node-API, which every
 * line loads). `--node <major>` makes the bundle for another line than this one, e.g. the Node that Claude Desktop
 * runs extensions on: that Node comes from the npm registry (scripts/node-version.mjs, cached in .cache/node/) and
 * better-sqlite3 is rebuilt with it, against its headers, in the staging folder only (this install is untouched).
 *
 *   node scripts/bundle.mjs [--out DIR] [--node MAJOR]     (default DIR: build/; default MAJOR: this Node's)
 *   npm run bundle -- --node 24
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, relative, resolve, sep } from 'node:path';
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
  fail(`--node must be the major version of a supported Node.js line (${Object.keys(NODE_VERSIONS).join(', ')}), not "${args.node}"`);
}
const nodeMajor = args.node === undefined ? ownMajor : Number(args.node);
/** The Node the native module is built for: this one, or the pinned release of the line --node asks for. */
const targetBin = nodeMajor === ownMajor ? dirname(process.execPath) : nodeBin(nodeMajor);

if (!existsSync(join(ROOT, 'dist', 'cli.js'))) {
  process.stderr.write('bundle: dist/ is missing; run `npm run build` first (npm run bundle does)\n');
  process.exit(1);
}

/** The production dependency folders of this install, outermost only (a nested one travels with its parent). */
function productionPackages() {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const dirs = out.split('\n').filter((d) => d && d !== ROOT).sort();
  return dirs.filter((d, i) => !dirs.slice(0, i).some((parent) => d.startsWith(parent + sep)));
}

/** The tools the bundle declares, from the catalog (the built CLI prints it). */
function catalogTools() {
  const { tools } = JSON.parse(execFileSync(process.execPath, [join(ROOT, 'bin', 'vault-tools.js'), 'tools', '--json'], { encoding: 'utf8' }));
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
      'Reads a consulting engagement\'s knowledge (entities, evidence, meetings and transcripts, conflicts, calendar, tasks, briefs, mail) from a local SQLite store, offline, and acts on it: charts, xlsx/csv/pdf exports, tasks, meetings, e-mails. Optionally syncs with the hosted Vault Knowledge and Actions Service.',
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
      // better-sqlite3 is built for one Node line's ABI: that line, from the version package.json supports.
      runtimes: { node: nodeRange(nodeMajor) },
    },
    user_config: {
      data_dir: {
        type: 'directory',
        title: 'Data folder',
        description: 'Where the store, charts and exports live. Empty: the platform user data folder (~/.local/share/vault-tools on Linux).',
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

/** The range of Node line `major` that package.json `engines` supports (`^20.18.1` → `>=20.18.1 <21.0.0`). */
function nodeRange(major) {
  const clause = pkg.engines.node.split('||').map((c) => c.trim()).find((c) => c.startsWith(`^${major}.`));
  if (!clause) fail(`package.json engines (${pkg.engines.node}) does not support Node ${major}`);
  return `>=${clause.slice(1)} <${major + 1}.0.0`;
}

/** better-sqlite3 in the staging folder, rebuilt by the target Node against its own headers (no download). */
function rebuildSqliteForTarget() {
  const env = { ...process.env, PATH: `${targetBin}${delimiter}${process.env.PATH ?? ''}`, npm_config_nodedir: dirname(targetBin), npm_config_update_notifier: 'false' };
  execFileSync('npm', ['rebuild', 'better-sqlite3', '--loglevel=error', '--no-audit', '--no-fund'], { cwd: STAGE, env, stdio: ['ignore', 'ignore', 'inherit'] });
  // It must open a database in that Node before it is packed.
  const check = `const D=require('better-sqlite3');const v=new D(':memory:').prepare('select sqlite_version() v').get().v;process.stdout.write(process.version+' (SQLite '+v+')')`;
  const said = execFileSync(join(targetBin, 'node'), ['-e', check], { cwd: STAGE, encoding: 'utf8' });
  process.stderr.write(`bundle: better-sqlite3 rebuilt for Node ${said}\n`);
}

const IGNORE = [
  // Build inputs of the native modules: the compiled .node files are all that runs.
  'node_modules/better-sqlite3/deps/',
  'node_modules/better-sqlite3/src/',
  'node_modules/better-sqlite3/build/Release/obj/',
  'node_modules/better-sqlite3/build/Release/obj.target/',
  'node_modules/better-sqlite3/build/Release/.deps/',
  'node_modules/better-sqlite3/build/deps/',
  'node_modules/**/*.d.ts',
  'node_modules/**/*.md',
  'node_modules/**/test/',
];

rmSync(STAGE, { recursive: true, force: true });
mkdirSync(STAGE, { recursive: true });
for (const part of ['bin', 'dist', 'fixtures', 'package.json', 'README.md']) cpSync(join(ROOT, part), join(STAGE, part), { recursive: true });
// The native matrix kernel, when this install built it (scripts/build-native.mjs): the embedder runs about twice as fast with it.
const nativeKernel = join('native', 'vault-tools-matmul.node');
if (existsSync(join(ROOT, nativeKernel))) cpSync(join(ROOT, nativeKernel), join(STAGE, nativeKernel));
for (const dir of productionPackages()) cpSync(dir, join(STAGE, relative(ROOT, dir)), { recursive: true, dereference: true });
if (nodeMajor !== ownMajor) rebuildSqliteForTarget();
writeFileSync(join(STAGE, 'manifest.json'), `${JSON.stringify(manifest(), null, 2)}\n`);
writeFileSync(join(STAGE, '.mcpbignore'), `${IGNORE.join('\n')}\n`);

const mcpb = join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
const file = join(OUT, `${pkg.name}-${pkg.version}-${process.platform}-${process.arch}-node${nodeMajor}.mcpb`);
execFileSync(process.execPath, [mcpb, 'validate', join(STAGE, 'manifest.json')], { stdio: ['ignore', 'ignore', 'inherit'] });
execFileSync(process.execPath, [mcpb, 'pack', STAGE, file], { stdio: ['ignore', 'ignore', 'inherit'] });
rmSync(STAGE, { recursive: true, force: true });
process.stdout.write(`${file}\n`);
