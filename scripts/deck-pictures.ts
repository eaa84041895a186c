// `npm run deck:pictures`: the decks of both demo vaults (export_deck on the shipped fixtures, the clock pinned
// to 2026-11-27 12:00 UTC) opened by LibreOffice headless and drawn slide by slide into
// docs/deck/<vault>-NN.png (pdftoppm, 60 dpi: 800 × 450 px). Needs libreoffice-impress and poppler-utils. Look
// at every picture after a change to the deck's layout or content.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKey, authenticate } from '../src/auth/keys.js';
import { closeChartRenderer } from '../src/render/chart/index.js';
import { Service } from '../src/service/invoke.js';
import { openDb } from '../src/store/db.js';
import { loadFixture } from '../src/load/load.js';
import { readVaultDir } from '../src/vault-format/read.js';

const DIR = 'docs/deck';
const NOW = new Date('2026-11-27T12:00:00Z');
const work = mkdtempSync(join(tmpdir(), 'vt-deck-pictures-'));
try {
  const db = openDb(work);
  const principal = authenticate(db, createKey(db, { name: 'deck pictures', role: 'manager', vaults: '*' }).key);
  mkdirSync(DIR, { recursive: true });
  for (const file of readdirSync(DIR)) if (file.endsWith('.png')) rmSync(join(DIR, file));
  for (const name of ['northwind', 'meridian']) {
    const { vaultId } = loadFixture(db, readVaultDir(`fixtures/${name}`), { origin: 'fixture', now: NOW });
    const result = await new Service(db, { dataDir: work, now: () => NOW }).invoke(
      'export_deck',
      { vault: vaultId },
      principal,
    );
    if (!result.ok) throw new Error(`export_deck: ${result.code}: ${result.message}`);
    const deck = join(work, `${name}.pptx`);
    copyFileSync(fileURLToPath(result.data.url as string), deck);
    execFileSync(
      'soffice',
      [
        '--headless',
        '--norestore',
        `-env:UserInstallation=file://${work}/profile`,
        '--convert-to',
        'pdf',
        '--outdir',
        work,
        deck,
      ],
      { stdio: 'ignore' },
    );
    execFileSync('pdftoppm', ['-r', '60', '-png', join(work, `${name}.pdf`), join(DIR, name)]);
  }
  await closeChartRenderer();
  process.stderr.write(`${readdirSync(DIR).filter((f) => f.endsWith('.png')).length} slides in ${DIR}\n`);
  db.close();
} finally {
  rmSync(work, { recursive: true, force: true });
}
