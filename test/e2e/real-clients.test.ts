/**
 * The built server checked by third-party MCP clients: MCP Inspector's CLI over stdio and over HTTP with the
 * bearer header, and the official conformance suite (scripts/mcp-clients.mjs; pinned versions through npx,
 * which brings the Node 22 they need from the npm registry). The first run downloads them (measured: about
 * a minute on a fresh npm cache; about 25 s once cached), hence the long timeout.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

describe('real MCP clients', () => {
  it('the baseline names only scenarios of the suite, each with a reason and the checks allowed to fail', () => {
    const baseline = JSON.parse(readFileSync(join(ROOT, 'test', 'conformance-baseline.json'), 'utf8')) as {
      notApplicable: Record<string, Record<string, { reason: string; failingChecks: string[] }>>;
    };
    expect(Object.keys(baseline.notApplicable)).toEqual(['2026-07-28', '2025-11-25']);
    for (const scenarios of Object.values(baseline.notApplicable)) {
      for (const [scenario, { reason, failingChecks }] of Object.entries(scenarios)) {
        expect(scenario).toMatch(/^[a-z0-9-]+$/);
        expect(reason.length, scenario).toBeGreaterThan(30);
        expect(failingChecks.length, scenario).toBeGreaterThan(0);
      }
    }
    // What this server must pass on its own merits in the 2026 era, never baselined.
    for (const scenario of [
      'tools-list',
      'caching',
      'resources-list',
      'prompts-list',
      'dns-rebinding-protection',
      'sep-2164-resource-not-found',
    ]) {
      expect(baseline.notApplicable['2026-07-28']![scenario], scenario).toBeUndefined();
    }
  });

  it('Inspector (stdio and HTTP with a bearer key) and the conformance suite pass', async () => {
    const started = Date.now();
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [join(ROOT, 'scripts', 'mcp-clients.mjs')], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('close', (exit) => resolve({ code: exit, output }));
    });
    // The script's own report is the useful failure message.
    expect(code, output).toBe(0);
    expect(output).toMatch(/ok {3}inspector stdio tools\/call stats/);
    expect(output).toMatch(/ok {3}inspector http tools\/call stats/);
    expect(output).toMatch(/ok {3}conformance 2026-07-28 requirements/);
    expect(output).toMatch(/ok {3}conformance 2026-07-28: baselined scenarios fail only their listed checks/);
    expect(output).toMatch(/ok {3}conformance 2025-11-25 requirements/);
    expect(output).toMatch(/ok {3}conformance 2025-11-25: baselined scenarios fail only their listed checks/);
    process.stderr.write(`real MCP clients: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }, 300_000);
});
