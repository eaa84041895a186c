/** What every part of the suite gets: the generated store, its manifest, the preset's call counts and a scratch dir. */
import type { Manifest } from '../generate.js';

export interface BenchContext {
  /** data dir of the generated store */
  dir: string;
  manifest: Manifest;
  /** the store's size in words, for the rows */
  size: string;
  small: boolean;
  /** timed calls per tool, and untimed warm-up calls before them */
  calls: number;
  warmup: number;
  /** scratch directory for the extra stores (export, sync), removed after the run */
  tmp: string;
  log(line: string): void;
}

/** The vault the per-vault measurements use. */
export const benchVault = (ctx: BenchContext) => ctx.manifest.vaults[0]!;

export const vaultSize = (v: { entities: number; meetings: number; chunks: number }) =>
  `one vault of ${v.entities.toLocaleString('en')} entities, ${v.meetings.toLocaleString('en')} meetings, ${v.chunks.toLocaleString('en')} chunks`;
