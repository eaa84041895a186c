/**
 * The scaled-data generator: a store of any size in the layout the fixture loader writes, built straight
 * into SQLite (openDb + migrations) with bulk inserts in transactions, plus random unit vectors for every
 * transcript chunk stored through the real indexing path (src/search/vectors.ts indexPending, with a
 * stand-in embedder that has the default embedder's id and dims: embedding a million chunks with the CPU
 * model would take hours, and bench:search measures that model's quality and speed).
 *
 *   npx tsx bench/generate.ts DIR [--small] [--vaults N] [--entities N] [--meetings N] [--chunks N] [--no-vectors]
 *
 * Writes DIR/vault-tools.db, DIR/owner.key and DIR/bench-manifest.json (what was made, for the suite).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDb } from '../src/store/db.js';
import { ensureOwnerKey } from '../src/auth/keys.js';
import { indexPending } from '../src/search/vector-indexing.js';
import { USE_LITE_DIMS, USE_LITE_ID } from '../src/search/embedder/use-lite.js';
import { DAY_MS } from '../src/time.js';
import { prng, TextMaker, unitVector, vocabulary } from './lib/synth.js';
import { writeVault, type WrittenVault } from './lib/vault-writer.js';

export interface ScaleSpec {
  vaults: number;
  /** totals over all vaults */
  entities: number;
  meetings: number;
  chunks: number;
  vectors: boolean;
  seed?: number;
}

export const PRESETS = {
  full: { vaults: 20, entities: 200_000, meetings: 10_000, chunks: 1_000_000, vectors: true },
  small: { vaults: 2, entities: 2_000, meetings: 100, chunks: 10_000, vectors: true },
} satisfies Record<string, ScaleSpec>;

export interface Manifest {
  spec: ScaleSpec;
  vocabulary: string;
  /** the "now" of the data: meetings span the year before it */
  anchor: string;
  seconds: { total: number; records: number; vectors: number };
  vaults: WrittenVault[];
  ownerKey: string;
}

export const MANIFEST_FILE = 'bench-manifest.json';

const share = (total: number, parts: number, i: number) => Math.floor(total / parts) + (i < total % parts ? 1 : 0);

export async function generateStore(
  dir: string,
  spec: ScaleSpec,
  progress: (line: string) => void = () => {},
): Promise<Manifest> {
  const t0 = performance.now();
  const db = openDb(dir);
  try {
    if ((db.prepare('SELECT count(*) FROM vaults').pluck().get() as number) > 0)
      throw new Error(`${dir} already holds a store; generate into an empty directory`);
    db.pragma('synchronous = OFF'); // a generated store is disposable; the servers reopen it with the usual settings
    db.pragma('cache_size = -262144');
    const rnd = prng(spec.seed ?? 42);
    const vocab = vocabulary();
    const text = new TextMaker(rnd, vocab.words);
    const anchorMs = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const vaults: WrittenVault[] = [];
    for (let v = 0; v < spec.vaults; v++) {
      const size = {
        entities: share(spec.entities, spec.vaults, v),
        meetings: share(spec.meetings, spec.vaults, v),
        chunks: share(spec.chunks, spec.vaults, v),
      };
      vaults.push(writeVault(db, v, size, anchorMs, rnd, text));
      progress(`vault ${v + 1}/${spec.vaults} written (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
    const tRecords = performance.now();
    if (spec.vectors) {
      // Random vectors under the default embedder's id, so a server's real embedder searches them.
      const standIn = {
        id: USE_LITE_ID,
        dims: USE_LITE_DIMS,
        embed: async (texts: string[]) => texts.map(() => unitVector(rnd, USE_LITE_DIMS)),
      };
      await indexPending(db, standIn, {
        batchSize: 65_536,
        onProgress: (p) =>
          p.done % 262_144 < 65_536 &&
          progress(`vectors ${p.done}/${p.total} (${((performance.now() - t0) / 1000).toFixed(0)} s)`),
      });
    }
    const tVectors = performance.now();
    db.pragma('wal_checkpoint(TRUNCATE)');
    const { key } = ensureOwnerKey(db, dir);
    const manifest: Manifest = {
      spec,
      vocabulary: vocab.source,
      anchor: new Date(anchorMs).toISOString(),
      seconds: {
        total: (performance.now() - t0) / 1000,
        records: (tRecords - t0) / 1000,
        vectors: (tVectors - tRecords) / 1000,
      },
      vaults,
      ownerKey: key,
    };
    writeFileSync(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } finally {
    db.close();
  }
}

/** "20 vaults, 200,000 entities, 10,000 meetings, 1,000,000 chunks" */
export function describeSpec(s: Pick<ScaleSpec, 'vaults' | 'entities' | 'meetings' | 'chunks'>): string {
  const n = (x: number) => x.toLocaleString('en');
  return `${n(s.vaults)} vault${s.vaults > 1 ? 's' : ''}, ${n(s.entities)} entities, ${n(s.meetings)} meetings, ${n(s.chunks)} chunks`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const dir = argv[0];
  if (!dir || dir.startsWith('--')) {
    process.stderr.write(
      'usage: tsx bench/generate.ts DIR [--small] [--vaults N] [--entities N] [--meetings N] [--chunks N] [--no-vectors]\n',
    );
    process.exit(2);
  }
  const num = (flag: string, fallback: number) =>
    argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback;
  const base = argv.includes('--small') ? PRESETS.small : PRESETS.full;
  const spec: ScaleSpec = {
    vaults: num('--vaults', base.vaults),
    entities: num('--entities', base.entities),
    meetings: num('--meetings', base.meetings),
    chunks: num('--chunks', base.chunks),
    vectors: !argv.includes('--no-vectors'),
  };
  const m = await generateStore(dir, spec, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(
    `${describeSpec(spec)} in ${m.seconds.total.toFixed(1)} s (records ${m.seconds.records.toFixed(1)} s, vectors ${m.seconds.vectors.toFixed(1)} s) → ${dir}\n`,
  );
}
