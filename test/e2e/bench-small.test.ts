/**
 * The performance suite runs end to end on its small preset and reports every metric of issue 7 with a
 * number (the values are the suite's business, not this test's). Results go to a temp dir.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers.js';
import { SYNC_METRICS, syncAvailable } from '../../bench/sync.js';
import type { Row } from '../../bench/lib/report.js';

const TOOLS = [
  'stats',
  'list_findings.first',
  'list_findings.deep',
  'get_entity',
  'expand_graph',
  'search_knowledge',
  'search_transcripts',
  'changes_since',
  'fixed_page',
];
const SYNC = SYNC_METRICS.map(([metric]) => metric);
const EXPECTED = [
  'generate.seconds',
  'cold_start.median',
  'cold_start.2026.median',
  'cold_start.reference_v1.median',
  'stdio.noop.p50',
  'stdio.noop.p99',
  ...TOOLS.flatMap((t) => [`stdio.${t}.p50`, `stdio.${t}.p99`]),
  'stdio.search_transcripts.p95',
  'stdio.check_quotes.p50',
  'stdio.check_quotes.p95',
  'chart.cold',
  'chart.warm_p50',
  'rest.stats.rps',
  ...['xlsx', 'csv', 'pdf', 'deck', 'deck_busy'].flatMap((f) => [`export.${f}.seconds`, `export.${f}.peak_rss`]),
  'export.deck.package_failures',
  'export.deck_busy.package_failures',
  ...SYNC,
  'rss.idle_start',
  'rss.after_calls',
  'backup.seconds',
  'backup.reads.p95',
  'restore.seconds',
  ...['search_knowledge', 'search_transcripts'].map((t) => `live.${t}.after_write.p95`),
  'live.search_knowledge.2k.p50',
  'live.search_knowledge.20k.p50',
  'live.search_knowledge.growth_exponent',
  'live.search_transcripts.indexing.p95',
  'live.embedding.chunks_per_s',
  ...['stdio.rss', 'http.rss', 'stdio.fds', 'http.fds', 'stdio.heap', 'wal.max'].map((m) => `soak.${m}`),
];

const out = tempDir('vt-bench-results-');
afterAll(() => out.cleanup());

describe('npm run bench -- --small', () => {
  it('produces every metric, each with a number, a data size, and its reference where it has one', {
    timeout: 900_000,
  }, () => {
    const stdout = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'bench', 'run.ts'), '--small', '--out', out.dir],
      {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 16 << 20,
      },
    );
    const files = readdirSync(out.dir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const result = JSON.parse(readFileSync(join(out.dir, files[0]!), 'utf8')) as { rows: Row[]; preset: string };
    expect(result.preset).toBe('small');
    const byMetric = new Map(result.rows.map((r) => [r.metric, r]));
    // The soak's per-tool p99 rows: one for each tool called at least three times in both its first and last
    // quarter, which depends on how fast this machine is; each is checked below like the fixed rows.
    const perTool = [...byMetric.keys()].filter((m) => /^soak\.(stdio|http)\..+\.p99$/.test(m));
    expect(perTool.length).toBeGreaterThan(0);
    expect([...byMetric.keys()].filter((m) => !perTool.includes(m)).sort()).toEqual([...EXPECTED].sort());
    const optional = syncAvailable() ? [] : SYNC; // reported as "not available" until the build has `vault-tools sync`
    for (const metric of [...EXPECTED, ...perTool]) {
      const row = byMetric.get(metric)!;
      expect(row.size, metric).toBeTruthy();
      if (optional.includes(metric)) {
        expect(row.value, metric).toBeNull();
        expect(row.note, metric).toMatch(/sync/);
        continue;
      }
      expect(typeof row.value, metric).toBe('number');
      expect(Number.isFinite(row.value), metric).toBe(true);
      if (row.reference) expect(typeof row.reference.value, `${metric} reference`).toBe('number');
      expect(stdout).toContain(`| ${metric} |`);
    }
  });
});
