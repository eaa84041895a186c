import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers.js';
import { endOfLifeNotice, TESTED_NODE_LINES } from '../../src/cli/node-support.js';

const TODAY = new Date('2026-11-28T00:00:00Z');

it('names an ended line with its end date and the lines to install instead', () => {
  expect(endOfLifeNotice('20.20.2', TODAY)).toBe(
    'vault-tools: Node.js 20.20.2 reached its end of life on 2026-04-30 and gets no security fixes; vault-tools still runs on it, but install Node.js 22, 24 or 26 (supported and tested).',
  );
  expect(endOfLifeNotice('v25.2.0', TODAY)).toMatch(
    /^vault-tools: Node\.js 25\.2\.0 reached its end of life on 2026-06-01/,
  );
  expect(endOfLifeNotice('16.20.0', TODAY)).toMatch(/end of life/);
});

it('says nothing on a maintained line, nor on a line newer than it knows', () => {
  for (const v of ['22.23.3', '24.21.0', '26.10.0', '27.0.0']) expect(endOfLifeNotice(v, TODAY), v).toBeUndefined();
});

it('follows the schedule: Node 22 ends on 30 April 2027', () => {
  expect(endOfLifeNotice('22.23.3', new Date('2027-04-29T23:59:59Z'))).toBeUndefined();
  expect(endOfLifeNotice('22.23.3', new Date('2027-04-30T00:00:00Z'))).toMatch(
    /install Node\.js 24 or 26 \(supported and tested\)\.$/,
  );
});

it("tests the lines package.json's engines names (bin/vault-tools.js refuses a Node older than those)", () => {
  const engines = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node as string;
  expect(engines).toBe('^22.0.0 || ^24.0.0 || ^26.0.0');
  expect([...TESTED_NODE_LINES]).toEqual([22, 24, 26]);
});
