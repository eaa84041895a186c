/**
 * Headless Chromium (Debian's `chromium` package, which .ci/run installs) for checking pages the listener
 * serves: the DOM after scripts ran, or a screenshot. Flags as this machine needs them: no sandbox as root,
 * no GPU, and no background networking (the machine reaches no outside host).
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** How every headless Chromium here starts (this file, and the tests' CDP drivers), with a fresh profile. */
export const headlessFlags = (profile) => [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--hide-scrollbars',
  `--user-data-dir=${profile}`,
];
const flags = (profile, budget = 15000) => [...headlessFlags(profile), `--virtual-time-budget=${budget}`];
const OPTIONS = {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'ignore'],
  maxBuffer: 64 * 1024 * 1024,
  timeout: 120_000,
};

function run(args) {
  if (!CHROMIUM) throw new Error('chromium is not installed: apt-get install -y chromium (.ci/run does it)');
  const profile = mkdtempSync(join(tmpdir(), 'vt-chromium-'));
  try {
    return execFileSync(CHROMIUM, [...flags(profile), ...args], OPTIONS);
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * As run, without blocking this process: for pages this same process serves (the views' test host), whose
 * scenarios wait on several round trips, so with a longer virtual-time budget.
 */
function runAsync(args) {
  if (!CHROMIUM)
    return Promise.reject(new Error('chromium is not installed: apt-get install -y chromium (.ci/run does it)'));
  const profile = mkdtempSync(join(tmpdir(), 'vt-chromium-'));
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM, [...flags(profile, 30000), ...args], OPTIONS, (err, stdout) => {
      rmSync(profile, { recursive: true, force: true });
      if (err) reject(err);
      else resolve(stdout);
    });
  });
}

/** The page's DOM once its scripts have run. */
export const renderedDom = (url) => run(['--dump-dom', url]);

/** The same, awaited. */
export const renderedDomAsync = (url) => runAsync(['--dump-dom', url]);

/** A PNG of the page at the given window size. */
export const screenshot = (url, file, width = 1280, height = 1600) =>
  void run([`--window-size=${width},${height}`, `--screenshot=${file}`, url]);

/** The same, awaited. */
export const screenshotAsync = (url, file, width = 1280, height = 1600) =>
  runAsync([`--window-size=${width},${height}`, `--screenshot=${file}`, url]).then(() => undefined);
