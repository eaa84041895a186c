/**
 * Headless Chromium (Debian's `chromium` package, which .ci/run installs) for checking pages the listener
 * serves: the DOM after scripts ran, or a screenshot. Flags as this machine needs them: no sandbox as root,
 * no GPU, and no background networking (the machine reaches no outside host).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

function run(args) {
  if (!CHROMIUM) throw new Error('chromium is not installed: apt-get install -y chromium (.ci/run does it)');
  const profile = mkdtempSync(join(tmpdir(), 'vt-chromium-'));
  try {
    return execFileSync(
      CHROMIUM,
      ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--hide-scrollbars', `--user-data-dir=${profile}`, '--virtual-time-budget=15000', ...args],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
    );
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The page's DOM once its scripts have run. */
export const renderedDom = (url) => run(['--dump-dom', url]);

/** A PNG of the page at the given window size. */
export const screenshot = (url, file, width = 1280, height = 1600) => void run([`--window-size=${width},${height}`, `--screenshot=${file}`, url]);
