/**
 * The read-tool calls the suite times, with arguments that vary from call to call (entities, names,
 * queries), drawn from the generated vault through the server itself.
 */
import type { Manifest } from '../generate.js';
import { DAY_MS } from '../../src/time.js';
import { prng, vocabulary } from './synth.js';
import type { StdioRpc } from './rpc.js';

/** The bench server's two reference tools (bench/servers/mcp-bench.ts), never in the catalog. */
export const NOOP_TOOL = 'bench_noop';
export const FIXED_PAGE_TOOL = 'bench_fixed_page';

export interface Case {
  /** row id part, e.g. `list_findings.deep` */
  id: string;
  tool: string;
  args(i: number): Record<string, unknown>;
}

/** Fewer entities than this in the sample would make every call hit the same rows. */
const SAMPLE = 200;

export async function readCases(rpc: StdioRpc, manifest: Manifest, vault: string): Promise<Case[]> {
  const v = manifest.vaults.find((x) => x.id === vault)!;
  const page = (await rpc.call('list_findings', { vault, limit: SAMPLE, sort: 'recent', compact: true })) as {
    findings: { id: string; name: string }[];
  };
  const sample = page.findings;
  // A deep page: the cursor after half the vault (at most 5,000 rows), reached by paging like a client would.
  const deepAt = Math.min(5_000, Math.floor(v.entities / 2));
  let cursor: string | null = null;
  for (let seen = 0; seen < deepAt; seen += 200) {
    const p = (await rpc.call('list_findings', { vault, limit: 200, ...(cursor ? { cursor } : {}) })) as {
      nextCursor: string | null;
    };
    cursor = p.nextCursor;
  }
  const rnd = prng(7);
  const words = vocabulary().words;
  const queries = Array.from({ length: 100 }, () =>
    Array.from({ length: 4 + rnd.int(3) }, () => rnd.pick(words)).join(' '),
  );
  const names = sample.map((e, i) => {
    const w = e.name.split(' ');
    if (i % 3 === 0) return e.name; // exact
    if (i % 3 === 1) return `${w[0]} ${w[1]!.slice(0, 3)}`; // prefix
    return e.name.slice(0, 2) + e.name.slice(3); // a typo: one letter dropped
  });
  const entity = (i: number) => sample[i % sample.length]!.id;
  // "Since the last visit": the start of the vault's fifth most recent meeting.
  const since = new Date(Date.parse(manifest.anchor) - 5 * ((365 * DAY_MS) / Math.max(1, v.meetings))).toISOString();
  return [
    { id: 'stats', tool: 'stats', args: () => ({ vault }) },
    { id: 'list_findings.first', tool: 'list_findings', args: () => ({ vault }) },
    { id: 'list_findings.deep', tool: 'list_findings', args: () => ({ vault, cursor }) },
    { id: 'get_entity', tool: 'get_entity', args: (i) => ({ vault, entityId: entity(i), includeEvidence: true }) },
    { id: 'expand_graph', tool: 'expand_graph', args: (i) => ({ vault, entityId: entity(i), depth: 2 }) },
    { id: 'changes_since', tool: 'changes_since', args: () => ({ vault, since }) },
    { id: 'search_knowledge', tool: 'search_knowledge', args: (i) => ({ vault, query: names[i % names.length] }) },
    {
      id: 'search_transcripts',
      tool: 'search_transcripts',
      args: (i) => ({ vault, query: queries[i % queries.length] }),
    },
  ];
}

export const isSearch = (c: Case) => c.tool.startsWith('search_');
