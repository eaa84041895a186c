/**
 * Name and alias matching for search_knowledge: tolerant of case, accents, word order and small typos,
 * ranked exact > prefix > fuzzy. Each vault's names are held in memory in an index over their distinct words
 * (name-words.ts), which narrows a query to the few names that can match before the matcher scores them; the
 * index follows the store through the log of changed entities (migration 7), one entity at a time.
 */
import { editDistance } from '../store/text.js';
import { sql, type Db } from '../store/db.js';
import { entityNames, type EntityType, type NameRow } from '../store/entities.js';
import { NameWords } from './name-words.js';

export type MatchKind = 'exact' | 'prefix' | 'fuzzy';

export interface NameMatch {
  kind: MatchKind;
  score: number;
}

const RANK: Record<MatchKind, number> = { exact: 3, prefix: 2, fuzzy: 1 };

/** Typos allowed in a word of this length: none for short words, one from 4 letters, two from 8. */
export const typoBudget = (len: number) => (len >= 8 ? 2 : len >= 4 ? 1 : 0);

/**
 * Typos from the query word `w` to a name word, whole or as its start (+0.5); over typoBudget(w) means too
 * far. Remembered per name word: a vault's names share their words, and the edit distance is most of the cost.
 */
export function wordTypos(w: string): (n: string) => number {
  const budget = typoBudget(w.length);
  const memo = new Map<string, number>();
  return (n) => {
    let best = memo.get(n);
    if (best !== undefined) return best;
    best = budget + 1;
    // A name word shorter than w by more than the budget is too far, whole or as a start.
    if (n.length >= w.length - budget) {
      best = Math.min(best, editDistance(w, n, budget));
      if (n.length > w.length) best = Math.min(best, editDistance(w, n.slice(0, w.length), budget) + 0.5);
    }
    memo.set(n, best);
    return best;
  };
}

/** The forms of a normalized name every comparison uses, computed once per name (not once per name per query). */
export interface NameForms {
  norm: string;
  /** words in alphabetical order: word order does not matter */
  sorted: string;
  /** without spaces: "DockFlow" and "dock flow" are the same name */
  compact: string;
  words: string[];
}

export function nameForms(norm: string): NameForms {
  const words = norm.split(' ');
  return { norm, sorted: [...words].sort().join(' '), compact: norm.replace(/ /g, ''), words };
}

/** How `queryNorm` matches one normalized name, or undefined. Scores fall within their kind's band. */
export function matchName(queryNorm: string, nameNorm: string): NameMatch | undefined {
  return nameMatcher(queryNorm)(nameForms(nameNorm));
}

/**
 * How one query matches names, name after name. The typos between a query word and a name word are worked out
 * once per pair of words and remembered: a vault's names share their words, and the edit distance is most of
 * the cost of a search.
 */
export function nameMatcher(queryNorm: string): (name: NameForms) => NameMatch | undefined {
  const query = nameForms(queryNorm);
  const q = query.words;
  const typosTo = q.map(wordTypos);
  return (name) => {
    if (!query.norm || !name.norm) return undefined;
    if (query.norm === name.norm) return { kind: 'exact', score: RANK.exact + 0.5 };
    if (query.sorted === name.sorted) return { kind: 'exact', score: RANK.exact + 0.4 };
    if (query.compact === name.compact) return { kind: 'exact', score: RANK.exact + 0.3 };
    const words = name.words;
    const coverage = q.length / Math.max(q.length, words.length);
    if (name.norm.startsWith(query.norm)) return { kind: 'prefix', score: RANK.prefix + 0.4 + 0.09 * coverage };
    if (q.every((w) => words.some((n) => n.startsWith(w))))
      return { kind: 'prefix', score: RANK.prefix + 0.2 + 0.09 * coverage };
    // Fuzzy: every query word is within its typo budget of a name word, or of the start of one.
    let typos = 0;
    for (let i = 0; i < q.length; i++) {
      const budget = typoBudget(q[i]!.length);
      let best = budget + 1;
      for (const n of words) {
        best = Math.min(best, typosTo[i]!(n));
        if (best === 0) break;
      }
      if (best > budget) return undefined;
      typos += best;
    }
    return { kind: 'fuzzy', score: RANK.fuzzy + 0.5 / (1 + typos) + 0.09 * coverage };
  };
}

/** A name or alias of a vault's entity, ready to match. */
export interface IndexedName {
  entityId: string;
  name: string;
  isAlias: boolean;
  type: EntityType;
  forms: NameForms;
  /** position in the index: names are matched in this order (the store's order when the index was built) */
  order: number;
}

/**
 * The names of one vault, by entity, by word and by compact form. `match` gives what a scan of every name with
 * nameMatcher gives, in the same order: the matcher's conditions each need every query word to be a prefix of,
 * or within its typos of, some word of the name (or the compact forms to be equal), so the names holding one
 * query word's candidate words (NameWords) are all that can match.
 */
export class VaultNameIndex {
  /** The last entity_name_changes entry applied. */
  seq = 0;
  private readonly byEntity = new Map<string, IndexedName[]>();
  private readonly byWord = new Map<string, Set<IndexedName>>();
  private readonly byCompact = new Map<string, Set<IndexedName>>();
  private readonly words = new NameWords();
  private nextOrder = 0;
  /** names and aliases held */
  size = 0;

  /** Every name, in index order. */
  all(): IndexedName[] {
    return [...this.byEntity.values()].flat().sort((a, b) => a.order - b.order);
  }

  add(row: NameRow): void {
    const name: IndexedName = {
      entityId: row.entity_id,
      name: row.name,
      isAlias: row.is_alias === 1,
      type: row.type,
      forms: nameForms(row.norm),
      order: this.nextOrder++,
    };
    let names = this.byEntity.get(name.entityId);
    if (!names) this.byEntity.set(name.entityId, (names = []));
    names.push(name);
    this.size++;
    if (!name.forms.norm) return; // matches nothing
    for (const w of new Set(name.forms.words)) {
      let set = this.byWord.get(w);
      if (!set) {
        this.byWord.set(w, (set = new Set()));
        this.words.add(w);
      }
      set.add(name);
    }
    let same = this.byCompact.get(name.forms.compact);
    if (!same) this.byCompact.set(name.forms.compact, (same = new Set()));
    same.add(name);
  }

  removeEntity(entityId: string): void {
    const names = this.byEntity.get(entityId);
    if (!names) return;
    this.byEntity.delete(entityId);
    this.size -= names.length;
    for (const name of names) {
      if (!name.forms.norm) continue;
      for (const w of new Set(name.forms.words)) {
        const set = this.byWord.get(w)!;
        set.delete(name);
        if (!set.size) {
          this.byWord.delete(w);
          this.words.remove(w);
        }
      }
      const same = this.byCompact.get(name.forms.compact)!;
      same.delete(name);
      if (!same.size) this.byCompact.delete(name.forms.compact);
    }
  }

  /** The names `queryNorm` matches, with how, in index order. */
  match(queryNorm: string): { name: IndexedName; match: NameMatch }[] {
    if (!queryNorm) return [];
    const matcher = nameMatcher(queryNorm);
    const out: { name: IndexedName; match: NameMatch }[] = [];
    for (const name of this.candidates(queryNorm)) {
      const m = matcher(name.forms);
      if (m) out.push({ name, match: m });
    }
    return out;
  }

  /** The names that may match: those holding a candidate word of the most selective query word, and the compact twins. */
  private candidates(queryNorm: string): IndexedName[] {
    const query = nameForms(queryNorm);
    let fewest: Set<IndexedName>[] | undefined;
    let fewestCount = Infinity;
    for (const w of new Set(query.words)) {
      const sets = this.words.candidates(w, typoBudget(w.length), wordTypos(w)).map((n) => this.byWord.get(n)!);
      const count = sets.reduce((sum, set) => sum + set.size, 0);
      if (count < fewestCount) [fewest, fewestCount] = [sets, count];
      if (count === 0) break;
    }
    const found = new Set<IndexedName>();
    for (const set of fewest ?? []) for (const name of set) found.add(name);
    for (const name of this.byCompact.get(query.compact) ?? []) found.add(name);
    return [...found].sort((a, b) => a.order - b.order);
  }
}

/** Name indexes of the vaults searched last; a few, since a vault can have tens of thousands of names. */
const MAX_INDEXES = 4;
const indexes = new WeakMap<Db, Map<string, VaultNameIndex>>();
/** Past this many changed entities (or a tenth of the vault's names), the index is read again whole. */
const MAX_INCREMENTAL = 1000;

function buildIndex(db: Db, vaultId: string): VaultNameIndex {
  return db.transaction(() => {
    const index = new VaultNameIndex();
    index.seq = (sql(db, 'SELECT max(seq) FROM entity_name_changes').pluck().get() as number | null) ?? 0;
    for (const row of entityNames(db, vaultId)) index.add(row);
    return index;
  })();
}

/**
 * The vault's name index, current with the store: built once, then brought up to date by the entities whose
 * names (or type) changed since, as logged by migration 7's triggers (in this process or another): a rename is
 * one entity's entries replaced, and a write of anything else costs one indexed read of the log.
 */
export function nameIndex(db: Db, vaultId: string): VaultNameIndex {
  let byVault = indexes.get(db);
  if (!byVault) indexes.set(db, (byVault = new Map()));
  let index = byVault.get(vaultId);
  byVault.delete(vaultId); // re-inserted below: the map's order is the order of use
  if (index) index = catchUp(db, vaultId, index);
  index ??= buildIndex(db, vaultId);
  byVault.set(vaultId, index);
  if (byVault.size > MAX_INDEXES) byVault.delete(byVault.keys().next().value!);
  return index;
}

/** The index with the logged changes applied, or undefined when it is too far behind (read it again whole). */
function catchUp(db: Db, vaultId: string, index: VaultNameIndex): VaultNameIndex | undefined {
  const last = (sql(db, 'SELECT max(seq) FROM entity_name_changes').pluck().get() as number | null) ?? 0;
  if (last === index.seq) return index;
  return db.transaction(() => {
    const oldest = sql(db, 'SELECT min(seq) FROM entity_name_changes').pluck().get() as number | null;
    if (oldest === null || oldest > index.seq + 1) return undefined; // the log was trimmed past this index
    const rows = sql(db, 'SELECT entity_id FROM entity_name_changes WHERE vault_id = ? AND seq > ?')
      .pluck()
      .all(vaultId, index.seq) as string[];
    const entities = new Set(rows);
    if (entities.size > Math.max(MAX_INCREMENTAL, index.size / 10)) return undefined;
    const namesOf = sql(
      db,
      `SELECT n.entity_id, n.name, n.norm, n.is_alias, e.type FROM entity_names n
       JOIN entities e ON e.vault_id = n.vault_id AND e.id = n.entity_id WHERE n.vault_id = ? AND n.entity_id = ?`,
    );
    for (const id of entities) {
      index.removeEntity(id);
      for (const row of namesOf.all(vaultId, id) as NameRow[]) index.add(row);
    }
    index.seq = (sql(db, 'SELECT max(seq) FROM entity_name_changes').pluck().get() as number | null) ?? 0;
    return index;
  })();
}
