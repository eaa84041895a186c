/**
 * Deterministic synthetic content for the scaled stores: a seeded PRNG, a word list with speech-like
 * frequencies (the QMSum meeting transcripts when `../shared/data/qmsum-val` is present, else the words of
 * the shipped fixture vaults), and text built from it. Same seed and word source → same store.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
const QMSUM = resolve(ROOT, '..', 'shared', 'data', 'qmsum-val');

/** A 32-bit LCG: fast, deterministic, good enough for picking words and dates. */
export function prng(seed: number) {
  let s = seed >>> 0;
  const next = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    /** 0..n-1, skewed towards 0 (a few popular items, a long tail). */
    skewed: (n: number) => Math.floor(n * next() ** 3),
  };
}
export type Prng = ReturnType<typeof prng>;

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? jsonFiles(p) : name.endsWith('.json') ? [p] : [];
  });
}

/** Words of 3+ letters, each repeated by its frequency (capped at 50) so common words stay common. */
export function vocabulary(): { words: string[]; source: string } {
  const useQmsum = existsSync(QMSUM);
  const files = useQmsum
    ? jsonFiles(QMSUM)
    : [join(ROOT, 'fixtures', 'northwind'), join(ROOT, 'fixtures', 'meridian')].flatMap(jsonFiles);
  const counts = new Map<string, number>();
  for (const f of files) {
    for (const w of readFileSync(f, 'utf8')
      .toLowerCase()
      .match(/\b[a-z]{3,}\b/g) ?? [])
      counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const words = [...counts].flatMap(([w, n]) => Array<string>(Math.min(n, 50)).fill(w));
  return { words, source: useQmsum ? 'QMSum validation transcripts' : 'fixture vault text' };
}

export class TextMaker {
  constructor(
    private readonly rnd: Prng,
    private readonly words: string[],
  ) {}

  word(): string {
    return this.rnd.pick(this.words);
  }

  title(n: number): string {
    return Array.from({ length: n }, () => {
      const w = this.word();
      return w[0]!.toUpperCase() + w.slice(1);
    }).join(' ');
  }

  /** Sentences of 6–16 words until about `chars` characters. */
  prose(chars: number): string {
    let out = '';
    while (out.length < chars) {
      const n = 6 + this.rnd.int(11);
      let s = this.word();
      s = s[0]!.toUpperCase() + s.slice(1);
      for (let i = 1; i < n; i++) s += ` ${this.word()}`;
      out += `${(out ? ' ' : '') + s}.`;
    }
    return out;
  }
}

/** A random unit vector as the float32 bytes a vector index stores. */
export function unitVector(rnd: Prng, dims: number): Float32Array {
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    v[i] = rnd.next() * 2 - 1;
    norm += v[i]! * v[i]!;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i]! /= norm;
  return v;
}
