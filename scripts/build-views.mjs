/**
 * Builds the MCP Apps views (views/<name>.ts) into dist/views/<name>.html: one self-contained page each, its
 * script and style inlined (a host's sandbox loads nothing else, and the package works offline). Run by tsup
 * after every build (tsup.config.ts); the server reads the files (src/surfaces/mcp/apps.ts).
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const VIEWS = ['chart', 'findings', 'graph', 'conflicts', 'transcript', 'quotes'];

/**
 * The ext-apps `App` validates messages with zod, whose barrel of ~50 error-message locales (264 kB of the page)
 * a view never uses: English only, which zod itself defaults to.
 */
const englishOnlyZod = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
    }));
  },
};

export async function buildViews(outDir = join(ROOT, 'dist', 'views')) {
  mkdirSync(outDir, { recursive: true });
  const css = readFileSync(join(ROOT, 'views', 'style.css'), 'utf8');
  await Promise.all(
    VIEWS.map(async (view) => {
      const out = await build({
        entryPoints: [join(ROOT, 'views', `${view}.ts`)],
        bundle: true,
        minify: true,
        format: 'iife',
        platform: 'browser',
        target: 'es2022',
        write: false,
        legalComments: 'none',
        logLevel: 'error',
        plugins: [englishOnlyZod],
      });
      // `</script` inside the code would end the inline script early.
      const js = out.outputFiles[0].text.replace(/<\/(script)/gi, '<\\/$1');
      const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Vault ${view}</title><style>${css}</style></head><body><main id="app" aria-live="polite"><p class="muted">Waiting for the tool result…</p></main><script>${js}</script></body></html>`;
      writeFileSync(join(outDir, `${view}.html`), html);
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildViews();
