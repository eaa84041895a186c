import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 600_000, // the packaging test installs the packed tarball (native build included)
    // End-to-end suites spawn real processes; two cores, so run files two at a time.
    pool: 'forks',
    maxWorkers: 2,
  },
});
