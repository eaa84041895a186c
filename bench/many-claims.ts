// `npx tsx bench/many-claims.ts deck|pdf [N]`: issue 45, item 13. The Meridian fixture plus 4 open conflicts of N claims
// each (default 15,000), then one export (the deck, or the findings PDF) in this process: its size, time and peak RSS.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKey, authenticate } from '../src/auth/keys.js';
import { closeChartRenderer } from '../src/render/chart/index.js';
import { Service } from '../src/service/invoke.js';
import { openDb } from '../src/store/db.js';
import { insertConflict } from '../src/store/conflicts.js';
import { loadFixture } from '../src/load/load.js';
import { readVaultDir } from '../src/vault-format/read.js';
const [what, n] = [process.argv[2]!, Number(process.argv[3] ?? 15000)];
const NOW = new Date('2026-11-27T12:00:00Z');
const work = mkdtempSync(join(tmpdir(), 'vt-w47-claims-'));
const db = openDb(work);
const principal = authenticate(db, createKey(db, { name: 'x', role: 'manager', vaults: '*' }).key);
const { vaultId } = loadFixture(db, readVaultDir('fixtures/meridian'), { origin: 'fixture', now: NOW });
const top = db
  .prepare("SELECT id FROM entities WHERE vault_id = ? AND type = 'problem' ORDER BY mention_count DESC LIMIT 1")
  .pluck()
  .get(vaultId) as string;
const meeting = db.prepare('SELECT id FROM meetings WHERE vault_id = ? LIMIT 1').pluck().get(vaultId) as string;
db.transaction(() => {
  for (let c = 0; c < 4; c++)
    insertConflict(db, vaultId, {
      id: `a-many-${c}`,
      entityId: top,
      title: `A many ${c}`,
      status: 'open',
      note: null,
      createdAt: '2026-11-01T00:00:00Z',
      updatedAt: '2026-11-01T00:00:00Z',
      claims: Array.from({ length: n }, (_, i) => ({
        meetingId: meeting,
        turnIndex: i,
        speaker: `Speaker ${i}`,
        quote: `Claim number ${i} of conflict ${c}: ${'words '.repeat(6)}`,
        spokenAt: '2026-11-01T10:00:00Z',
      })),
    });
})();
const t0 = Date.now();
const r =
  what === 'deck'
    ? await new Service(db, { dataDir: work, now: () => NOW }).invoke('export_deck', { vault: vaultId }, principal)
    : await new Service(db, { dataDir: work, now: () => NOW }).invoke(
        'export_report',
        { vault: vaultId, dataset: 'findings', format: 'pdf' },
        principal,
      );
await closeChartRenderer();
const size = r.ok ? statSync(fileURLToPath(r.data.url as string)).size : -1;
console.log(
  JSON.stringify({
    what,
    claims: `4 x ${n}`,
    ok: r.ok,
    sizeBytes: size,
    seconds: (Date.now() - t0) / 1000,
    maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
