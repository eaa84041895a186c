#!/usr/bin/env node
/**
 * `npm run bundle`: an MCP Bundle (.mcpb) of this install for Claude Desktop's one-click install, packed by the
 * official `@anthropic-ai/mcpb` packer. The bundle holds the built package (bin, dist, fixtures) and its
 * production dependencies copied from this install's node_modules, so the native modules (better-sqlite3,
 * sqlite-vec, resvg) are the ones built and tested here: the bundle is for this platform, CPU and Node ABI,
 * which the manifest's `compatibility` says.
 *
 *   node scripts/bundle.mjs [--out DIR]     (default DIR: build/)
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const outIndex = process.argv.indexOf('--out');
const OUT = resolve(outIndex > 0 ? process.argv[outIndex + 1] : join(ROOT, 'build'));
const STAGE = join(OUT, 'mcpb-stage');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const nodeMajor = Number(process.versions.node.split('.')[0]);

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
      // Native modules are built for this Node's ABI.
      runtimes: { node: `>=${process.versions.node} <${nodeMajor + 1}.0.0` },
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
writeFileSync(join(STAGE, 'manifest.json'), `${JSON.stringify(manifest(), null, 2)}\n`);
writeFileSync(join(STAGE, '.mcpbignore'), `${IGNORE.join('\n')}\n`);

const mcpb = join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
const file = join(OUT, `${pkg.name}-${pkg.version}-${process.platform}-${process.arch}.mcpb`);
execFileSync(process.execPath, [mcpb, 'validate', join(STAGE, 'manifest.json')], { stdio: ['ignore', 'ignore', 'inherit'] });
execFileSync(process.execPath, [mcpb, 'pack', STAGE, file], { stdio: ['ignore', 'ignore', 'inherit'] });
rmSync(STAGE, { recursive: true, force: true });
process.stdout.write(`${file}\n`);
