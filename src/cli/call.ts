import type { Command } from 'commander';
import { Service, type InvokeResult } from '../service/invoke.js';
import { readResource } from '../service/resources.js';
import { artifactResourceUri } from '../core/links.js';
import { ServiceError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import { createEmbedder } from '../search/embedder/index.js';
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { toolsByName } from '../catalog/index.js';
import { jsonSchema, type Tool } from '../catalog/define.js';
import { basename, dirname, extname, join } from 'node:path';
import { safeSegment } from '../safe-path.js';
import { CliError, dataDirArg, openStore, principalFor, resolveDataDir, resolveKey } from './context.js';

/** `--out DIR`: the artifact a call produced, read through the service (the caller's access) and copied next to the user's work. */
function copyArtifact(
  service: Service,
  principal: Principal,
  result: Extract<InvokeResult, { ok: true }>,
  outDir: string,
): void {
  const artifact = result.artifacts?.[0];
  if (!artifact) throw new CliError('--out: this tool produced no artifact to copy');
  let content;
  try {
    content = readResource(service, principal, artifactResourceUri(artifact.vaultId, artifact.artifactId));
  } catch (err) {
    if (err instanceof ServiceError) throw new CliError(`--out: artifact ${artifact.artifactId} is not in the store`);
    throw err;
  }
  // `--out deck.pptx` (a file name with the artifact's own extension, where no folder of that name is) names the
  // file itself; anything else is the folder the artifact's own file name goes into.
  const asFile = extname(outDir).toLowerCase() === extname(artifact.fileName).toLowerCase() && !isDirectory(outDir);
  // The artifact's own name is the store's (a tool made it safe, sync kept upstream's): one segment, whatever it says.
  const [dir, fileName] = asFile ? [dirname(outDir), basename(outDir)] : [outDir, safeSegment(artifact.fileName)];
  mkdirSync(dir, { recursive: true });
  // Written afresh rather than copied: a copy would keep the store's private mode (0600), and this file is
  // the user's, in their folder, to share like any other they make. A file of that name already there (the
  // same export made twice) is kept: this one gets the next free name, "findings.pdf" then "findings (2).pdf".
  const target = writeNewFile(dir, fileName, content && 'bytes' in content ? content.bytes : (content?.text ?? ''));
  const renamed = basename(target) === fileName ? '' : ` (${fileName} was already there, and is kept)`;
  process.stderr.write(`copied ${artifact.fileName} to ${target}${renamed}\n`);
}

const isDirectory = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** "name.ext", else "name (2).ext", "name (3).ext", …: the first name not taken in `dir`, written exclusively (never over a file). */
export function writeNewFile(dir: string, fileName: string, data: string | Uint8Array): string {
  const ext = extname(fileName);
  const stem = fileName.slice(0, fileName.length - ext.length);
  for (let n = 1; ; n++) {
    const target = join(dir, n === 1 ? fileName : `${stem} (${n})${ext}`);
    try {
      writeFileSync(target, data, { flag: 'wx' });
      return target;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** A string field this long or longer takes a document (a draft, an e-mail body): what `--file` fills. */
const DOCUMENT_CHARS = 10_000;

/** The tool's field for a document, from its catalog schema: its longest string field, when it takes 10,000 characters or more. */
export function documentField(tool: Tool): { name: string; maxLength: number } | undefined {
  const props = (jsonSchema(tool.input, 'input').properties ?? {}) as Record<
    string,
    { type?: string; maxLength?: number }
  >;
  const fields = Object.entries(props)
    .filter(([, p]) => p.type === 'string' && (p.maxLength ?? 0) >= DOCUMENT_CHARS)
    .sort((a, b) => b[1].maxLength! - a[1].maxLength!);
  return fields[0] && { name: fields[0][0], maxLength: fields[0][1].maxLength! };
}

/**
 * `--file PATH`: the file's text as the tool's document field. Read only up to what the field may hold (a
 * character is at most 4 bytes in UTF-8), and as UTF-8 or not at all, so a wrong file gets a sentence, not a
 * half-read argument.
 */
function readDocument(toolName: string, path: string): { field: string; text: string } {
  const tool = toolsByName.get(toolName);
  if (!tool) throw new CliError(`call: unknown tool "${toolName}" (see \`vault-tools tools\`)`, 2);
  const field = documentField(tool);
  if (!field)
    throw new CliError(
      `call --file: ${toolName} takes no document (no text field of ${DOCUMENT_CHARS.toLocaleString('en')} characters or more); pass its arguments as JSON`,
      2,
    );
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new CliError(
      `call --file: cannot read ${JSON.stringify(path)} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      2,
    );
  }
  try {
    if (!fstatSync(fd).isFile()) throw new CliError(`call --file: ${JSON.stringify(path)} is not a file`, 2);
    const limit = field.maxLength * 4;
    const bytes = Buffer.alloc(Math.min(fstatSync(fd).size, limit) + 1);
    const read = readSync(fd, bytes, 0, bytes.length, 0);
    if (read > limit)
      throw new CliError(
        `call --file: ${JSON.stringify(path)} is larger than \`${field.name}\` may be (${field.maxLength.toLocaleString('en')} characters)`,
        2,
      );
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, read)).replace(/^\uFEFF/, '');
    } catch {
      throw new CliError(`call --file: ${JSON.stringify(path)} is not UTF-8 text`, 2);
    }
    return { field: field.name, text };
  } finally {
    closeSync(fd);
  }
}

export function register(program: Command): void {
  program
    .command('call')
    .description('call one tool through the same service path as MCP; prints the `data` JSON on stdout')
    .argument('<tool>', 'tool name (see `vault-tools tools`)')
    .argument('[json]', 'arguments as a JSON object', '{}')
    .option('--vault <vault>', 'vault id or name (same as "vault" in the JSON)')
    .option('--key <key>', 'key to act with (default: $VAULT_TOOLS_KEY or the data dir owner key)')
    .option('--data-dir <dir>', 'data directory')
    .option(
      '--out <path>',
      "also copy a produced artifact (chart, export) into this directory, or to this file when it ends with the artifact's extension (deck.pptx)",
    )
    .option(
      '--file <path>',
      "the tool's document field (its longest text field, e.g. check_quotes `text`, send_email `body`) from this UTF-8 file",
    )
    .option('--init', 'create the data dir and a new store when the data dir does not exist yet')
    .action(
      async (
        tool: string,
        argsJson: string,
        opts: { vault?: string; key?: string; dataDir?: string; out?: string; file?: string; init?: boolean },
      ) => {
        let args: unknown;
        try {
          args = JSON.parse(argsJson);
        } catch (err) {
          throw new CliError(
            `call: the arguments are not valid JSON (${(err as Error).message}); pass an object such as '{"limit": 5}'`,
            2,
          );
        }
        if (opts.vault !== undefined || opts.file !== undefined) {
          if (typeof args !== 'object' || args === null || Array.isArray(args))
            throw new CliError('call: the arguments must be a JSON object', 2);
          if (opts.vault !== undefined) args = { ...(args as object), vault: opts.vault };
        }
        if (opts.file !== undefined) {
          const { field, text } = readDocument(tool, opts.file);
          if (field in (args as object))
            throw new CliError(`call: \`${field}\` is given twice, in the JSON and by --file; keep one`, 2);
          args = { ...(args as object), [field]: text };
        }
        const { dir, why } = resolveDataDir(opts.dataDir);
        const db = openStore(dir, why, { create: opts.init, offersInit: true });
        try {
          const principal = principalFor(db, resolveKey(db, dir, opts.key));
          const embedder = createEmbedder();
          const service = new Service(db, { dataDir: dir, embedder });
          // A wrong name's hint names what lists them here, on this store: `vault-tools tools`, `call list_vaults --data-dir`.
          const result: InvokeResult = await (service.tool(tool)
            ? service.invoke(tool, args, principal)
            : Promise.resolve<InvokeResult>({
                ok: false,
                status: 404,
                code: 'tool_not_found',
                message: service.noSuchTool(tool, principal, '`vault-tools tools`'),
              })
          ).finally(() => embedder.close());
          if (!result.ok && result.code === 'vault_not_found')
            result.message = result.message.replace(
              'list_vaults shows',
              `\`vault-tools call list_vaults${dataDirArg(opts.dataDir)}\` shows`,
            );
          if (result.ok) {
            process.stdout.write(`${JSON.stringify(result.data, null, 2)}\n`);
            if (opts.out) copyArtifact(service, principal, result, opts.out);
          } else {
            // The error body of every surface (docs/errors.md); the id names this one call in reports.
            process.stderr.write(
              `${JSON.stringify({ error: { code: result.code, message: result.message, requestId: randomUUID() } }, null, 2)}\n`,
            );
            process.exitCode = 1;
          }
        } finally {
          db.close();
        }
      },
    );
}
