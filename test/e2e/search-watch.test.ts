/**
 * A running `serve` embeds chunks that another process writes while it runs (issue 54): an `import --force` of a
 * vault with new transcript text, and a `sync` that pulls a changed meeting from a second vault-tools on loopback.
 * Within 30 s search_transcripts in that vault answers in hybrid mode with every chunk covered, no restart.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, FIXTURE_DIRS, tempDir } from '../helpers.js';
import { startServer, type RunningServer } from '../http-helpers.js';

const VAULT = 'northwind-logistics';
const NEW_TEXT = 'Separately, the forklift charging bays should move next to dock four before the winter peak.';

interface Answer {
  mode: string;
  vectorCoverage: { chunks: number; withVectors: number };
  results: { text: string }[];
}

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** `vault-tools serve` on `dir` over real stdio, background indexing on (as users run it). */
async function serveStdio(dir: string): Promise<(query: string) => Promise<Answer>> {
  const client = new Client({ name: 'search-watch-test', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--data-dir', dir],
      env: { PATH: process.env.PATH ?? '', VAULT_TOOLS_LOG: 'warn' },
      stderr: 'pipe',
    }),
  );
  cleanups.push(() => client.close());
  return async (query) =>
    (await client.callTool({ name: 'search_transcripts', arguments: { vault: VAULT, query, limit: 5 } }))
      .structuredContent as unknown as Answer;
}

/** Asks until every chunk of the vault has a vector and search is hybrid, or the deadline passes; the last answer. */
async function untilCovered(search: (q: string) => Promise<Answer>, query: string, withinMs: number): Promise<Answer> {
  const deadline = Date.now() + withinMs;
  let r = await search(query);
  while ((r.mode !== 'hybrid' || r.vectorCoverage.withVectors < r.vectorCoverage.chunks) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    r = await search(query);
  }
  return r;
}

/** The vault exported from `dataDir`, with one turn of its first meeting given new words (and the meeting a new name, which is what an incremental pull notices). */
function changedExport(dataDir: string): string {
  const { dir, cleanup } = tempDir('vt-export-');
  cleanups.push(cleanup);
  const folder = join(dir, 'vault');
  cli(['export', VAULT, folder, '--data-dir', dataDir]);
  const file = join(folder, 'meetings', readdirSync(join(folder, 'meetings')).sort()[0]!);
  const meeting = JSON.parse(readFileSync(file, 'utf8')) as { name: string; transcript: { text: string }[] };
  meeting.name += ' (revised)';
  meeting.transcript[1]!.text += ` ${NEW_TEXT}`;
  writeFileSync(file, JSON.stringify(meeting, null, 2));
  return folder;
}

describe('a serving process embeds what other processes write', () => {
  it('after an import --force by a second process', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    cli(['call', 'list_vaults', '--data-dir', dir]); // makes the store and its owner key
    cli(['import', FIXTURE_DIRS.northwind, '--data-dir', dir]); // the only vault, no vectors yet
    const search = await serveStdio(dir);
    // The server's first pass embeds the vault with the model (so it is over once every chunk is covered).
    const before = await untilCovered(search, 'forklift charging bays', 150_000);
    expect(before.vectorCoverage.withVectors).toBe(before.vectorCoverage.chunks);

    cli(['import', changedExport(dir), '--force', '--data-dir', dir]);
    const after = await untilCovered(search, 'forklift charging bays', 30_000);
    expect(after.results.map((x) => x.text).join(' ')).toContain('dock four'); // the import landed: new chunks
    expect(after.vectorCoverage.chunks).toBeGreaterThan(0);
    expect(after.mode).toBe('hybrid');
    expect(after.vectorCoverage.withVectors).toBe(after.vectorCoverage.chunks);
  }, 240_000);

  it('after a sync by a second process from a vault-tools on loopback', async () => {
    const hostedDir = tempDir('vt-hosted-');
    cleanups.push(hostedDir.cleanup);
    cli(['demo', '--data-dir', hostedDir.dir, '--no-serve']);
    const hosted: RunningServer = await startServer(hostedDir.dir, ['--rate-limit', '0']);
    cleanups.push(() => hosted.stop());
    const hostedKey = readFileSync(join(hostedDir.dir, 'owner.key'), 'utf8').trim();
    const sync = (localDir: string) =>
      JSON.parse(
        cli([
          'sync',
          '--remote',
          hosted.url,
          '--remote-key',
          hostedKey,
          '--vault',
          VAULT,
          '--data-dir',
          localDir,
          '--json',
        ]),
      ) as {
        pulled: { meetingsFetched: number }[];
        errors: unknown[];
      };

    const { dir, cleanup } = tempDir('vt-local-');
    cleanups.push(cleanup);
    cli(['call', 'list_vaults', '--data-dir', dir]); // makes the local store and its owner key
    expect(sync(dir).errors).toEqual([]);
    const search = await serveStdio(dir);
    const before = await untilCovered(search, 'forklift charging bays', 150_000);
    expect(before.vectorCoverage.withVectors).toBe(before.vectorCoverage.chunks);

    cli(['import', changedExport(hostedDir.dir), '--force', '--data-dir', hostedDir.dir]); // upstream changes
    const report = sync(dir); // a second process pulls the change into the served store
    expect(report.errors).toEqual([]);
    expect(report.pulled[0]!.meetingsFetched).toBe(1);
    const after = await untilCovered(search, 'forklift charging bays', 30_000);
    expect(after.results.map((x) => x.text).join(' ')).toContain('dock four');
    expect(after.vectorCoverage.chunks).toBeGreaterThan(0);
    expect(after.mode).toBe('hybrid');
    expect(after.vectorCoverage.withVectors).toBe(after.vectorCoverage.chunks);
  }, 240_000);
});
