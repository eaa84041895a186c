import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The files that install and compile (better-sqlite3 for each Node line: test/e2e/package.test.ts four times,
 * the bundle once) take the longest: they start first, so the rest of the suite runs beside them instead of
 * after them (on a clean clone vitest would otherwise start the largest files first).
 */
const LONGEST = ['test/e2e/package.test.ts', 'test/e2e/bundle.test.ts'];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((path) => f.moduleId.replaceAll('\\', '/').endsWith(path));
      return i < 0 ? LONGEST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'], // rebuilds a stale dist/ first
    testTimeout: 30_000,
    // A hook that hangs fails in three minutes. The files that install or pack (package.test.ts, bundle.test.ts)
    // give their own hooks the long timeouts they need.
    hookTimeout: 180_000,
    // End-to-end suites spawn real processes; two cores, so run files two at a time.
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
  },
});
