/**
 * The real pipeline end to end: `serve` builds vectors in the background with the offline model while
 * search_transcripts answers by words; once the vault is embedded it answers by meaning too.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, cli, tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
let client: Client;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir());
  cli(['demo', '--data-dir', dir, '--no-serve']);
  client = new Client({ name: 'search-index-test', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--data-dir', dir], // background indexing on, as users run it
      env: { PATH: process.env.PATH ?? '', VAULT_TOOLS_LOG: 'warn' },
      stderr: 'pipe',
    }),
  );
});
afterAll(async () => {
  await client?.close();
  cleanup?.();
});

const search = async (query: string) =>
  (await client.callTool({ name: 'search_transcripts', arguments: { vault: 'meridian-health', query, limit: 5 } }))
    .structuredContent as {
    mode: string;
    vectorCoverage: { chunks: number; withVectors: number };
    results: { meetingId: string; text: string; matchedBy: string[] }[];
  };

it('answers by words at once, and by meaning once the background index is built', async () => {
  const first = await search('discharge before noon');
  expect(first.results.length).toBeGreaterThan(0); // never waits for the index
  let r = first;
  const deadline = Date.now() + 150_000;
  // Hybrid starts as soon as some chunks have vectors; wait for all of them.
  while ((r.mode !== 'hybrid' || r.vectorCoverage.withVectors < r.vectorCoverage.chunks) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    r = await search('discharge before noon');
  }
  expect(r.mode).toBe('hybrid');
  expect(r.vectorCoverage.withVectors).toBe(r.vectorCoverage.chunks);
  // A question in other words than the speakers used still lands on the discharge discussion.
  const paraphrase = await search('patients going home late in the day');
  expect(paraphrase.results.some((x) => x.matchedBy.includes('meaning'))).toBe(true);
  expect(
    paraphrase.results
      .map((x) => x.text)
      .join(' ')
      .toLowerCase(),
  ).toMatch(/discharg/);
}, 180_000);
