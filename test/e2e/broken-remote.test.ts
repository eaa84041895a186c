/**
 * A remote.json that is not JSON (edited by hand, cut short): every command that reads it says so in one sentence
 * naming the file and the fix; `doctor`, the command meant to diagnose exactly this, reports it as a FAIL line.
 * No "unexpected failure", no stack (issue 53).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliFails, tempDir } from '../helpers.js';

let tmp: { dir: string; cleanup(): void };
beforeAll(() => {
  tmp = tempDir('vt-broken-remote-');
  cli(['call', 'list_vaults', '--data-dir', tmp.dir, '--init']);
  writeFileSync(join(tmp.dir, 'remote.json'), '{"url": "https://vault.example.com"'); // cut short
});
afterAll(() => tmp?.cleanup());

const STACK = /\n\s+at |unexpected failure/;
const SENTENCE =
  /remote\.json is not valid JSON \(.+\): fix it, or write it again with `vault-tools remote set URL --key KEY`/;
const env = { VAULT_TOOLS_REMOTE_URL: '', VAULT_TOOLS_REMOTE_KEY: '', VAULT_TOOLS_SYNC_EVERY: '' };

describe('a broken remote.json', () => {
  it('doctor reports it as a FAIL line with the fix', () => {
    const r = cliFails(['doctor', '--data-dir', tmp.dir], env);
    const out = r.stdout + r.stderr;
    expect(out).not.toMatch(STACK);
    const line = out.split('\n').find((l) => /^FAIL remote/.test(l));
    expect(line, out).toMatch(SENTENCE);
  });

  for (const args of [['sync'], ['remote', 'show'], ['serve', '--sync-every', '15']]) {
    it(`${args.join(' ')} says it in one sentence`, () => {
      const r = cliFails([...args, '--data-dir', tmp.dir], env);
      expect(r.stderr).not.toMatch(STACK);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(SENTENCE);
      expect(r.stdout).toBe('');
    });
  }
});
