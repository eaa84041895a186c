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
});
