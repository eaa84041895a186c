import { defineConfig } from 'tsup';

// One ESM bundle for the CLI; dependencies stay external (installed by npm), so native modules load as usual.
export default defineConfig({
  entry: { cli: 'src/cli/index.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  sourcemap: true,
  clean: true,
  splitting: true,
  dts: false,
  // The MCP Apps views: self-contained HTML pages beside the bundle (dist/views/), after `clean` has run.
  onSuccess: async () => {
    // @ts-expect-error: a plain .mjs build script, also run on its own (node scripts/build-views.mjs)
    const { buildViews } = await import('./scripts/build-views.mjs');
    await buildViews();
    // Swagger UI's bundle and stylesheet for /docs (src/surfaces/http/docs.ts), with their licences: swagger-ui-dist
    // is a dev dependency, so an install of vault-tools never runs its install-analytics script.
    const { copyFileSync, mkdirSync } = await import('node:fs');
    const { dirname, join } = await import('node:path');
    const { createRequire } = await import('node:module');
    const from = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    mkdirSync('dist/docs-vendor', { recursive: true });
    for (const f of ['swagger-ui-bundle.js', 'swagger-ui-bundle.js.LICENSE.txt', 'swagger-ui.css', 'LICENSE', 'NOTICE'])
      copyFileSync(join(from, f), join('dist/docs-vendor', f));
    // What this build was made from, for the test suite's check that dist/ is fresh (test/global-setup.ts).
    // @ts-expect-error: a plain .mjs script
    const { sourceHash, SOURCE_HASH_FILE } = await import('./scripts/source-hash.mjs');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`dist/${SOURCE_HASH_FILE}`, `${sourceHash(process.cwd())}\n`);
  },
});
