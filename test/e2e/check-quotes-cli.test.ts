/**
 * `vault-tools call check_quotes --file draft.md` (issue 49): `--file` fills the tool's document field, found
 * from the catalog (its longest text field), for any tool that has one; a file that is missing, not UTF-8 or
 * too long, a field given twice, or a tool without a document gets one sentence and exit code 2.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cli, cliFails, demoStore, tempDir, type DemoStore } from '../helpers.js';
import { toolsByName } from '../../src/catalog/index.js';
import { documentField } from '../../src/cli/call.js';

const NW = 'northwind-logistics';
let store: DemoStore;
let folder: ReturnType<typeof tempDir>;
beforeAll(() => {
  store = demoStore();
  folder = tempDir();
}, 120_000);
afterAll(() => {
  folder?.cleanup();
  store?.cleanup();
});

const call = (args: string[]) => cli(['call', ...args, '--data-dir', store.dir, '--key', store.ownerKey]);

it('--file gives check_quotes its draft; the answer is the same as with the JSON argument', () => {
  const draft =
    '# Notes\n\n“Ninety minutes gate to gate. In the afternoons we hit it.” — Tom Becker\n\n"We never had a single late trailer in October," said Lewis Harper.\n';
  const file = join(folder.dir, 'draft.md');
  writeFileSync(file, draft);
  const byFile = JSON.parse(call(['check_quotes', '--file', file, '--vault', NW]));
  expect(
    byFile.quotations.map((q: { verdict: string; misattributed: boolean }) => [q.verdict, q.misattributed]),
  ).toEqual([
    ['verbatim', true],
    ['not_found', false],
  ]);
  expect(byFile.quotations[0].sources[0].speaker).toBe('Lewis Harper');
  expect(JSON.parse(call(['check_quotes', JSON.stringify({ text: draft }), '--vault', NW]))).toEqual(byFile);
});

it('the document field comes from the catalog: check_quotes `text`, send_email `body`, none for list_vaults', () => {
  expect(documentField(toolsByName.get('check_quotes')!)?.name).toBe('text');
  expect(documentField(toolsByName.get('send_email')!)?.name).toBe('body');
  expect(documentField(toolsByName.get('list_vaults')!)).toBeUndefined();
});

it('says what is wrong with a file or the arguments, exit code 2', () => {
  const binary = join(folder.dir, 'draft.bin');
  writeFileSync(binary, Buffer.from([0x93, 0xff, 0xfe, 0x00, 0xc3]));
  const long = join(folder.dir, 'long.md');
  writeFileSync(long, 'x'.repeat(400_001));
  const draft = join(folder.dir, 'ok.md');
  writeFileSync(draft, '“Ninety minutes gate to gate.”');
  const cases: [string[], RegExp][] = [
    [['check_quotes', '--file', join(folder.dir, 'missing.md'), '--vault', NW], /cannot read .*missing\.md.*ENOENT/],
    [['check_quotes', '--file', binary, '--vault', NW], /is not UTF-8 text/],
    [['check_quotes', '--file', long, '--vault', NW], /larger than `text` may be \(100,000 characters\)/],
    [['check_quotes', '{"text": "x"}', '--file', draft, '--vault', NW], /`text` is given twice/],
    [['list_vaults', '--file', draft], /list_vaults takes no document/],
    [['check_quotes', '--file', folder.dir, '--vault', NW], /is not a file|EISDIR/],
  ];
  for (const [args, message] of cases) {
    const r = cliFails(['call', ...args, '--data-dir', store.dir, '--key', store.ownerKey]);
    expect([r.status, r.stdout], args.join(' ')).toEqual([2, '']);
    expect(r.stderr, args.join(' ')).toMatch(message);
  }
  // A file just over the field's characters but within its bytes is the service's to refuse, naming the field.
  const over = join(folder.dir, 'over.md');
  writeFileSync(over, 'y'.repeat(100_001));
  const r = cliFails([
    'call',
    'check_quotes',
    '--file',
    over,
    '--vault',
    NW,
    '--data-dir',
    store.dir,
    '--key',
    store.ownerKey,
  ]);
  expect(r.status).toBe(1);
  expect(JSON.parse(r.stderr).error).toMatchObject({
    code: 'invalid_arguments',
    message: expect.stringContaining('`text`'),
  });
});
