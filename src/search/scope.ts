/**
 * Vault scope resolution for suggest_vault_scope. It reads only what a vault advertises (name, client,
 * keywords, people registry names, cached summary), never vault content, and scores each vault by the
 * signals the conversation carries. A signal shared by several vaults (a consultant on both engagements)
 * is split between them, so it cannot decide alone.
 *
 * It never guesses: a vault is selected on evidence. Evidence is the vault named, or words and names it
 * advertises. Unless a vault is named outright, every name the conversation mentions (a person, an organisation,
 * a site: see mentioned-names.ts) must be one a vault of the key knows. A conversation about another client
 * ("Carla Mendes says the Porto depot of Atlantic Freight is late") mentions names none of them knows, so the
 * answer is a question, even when the key reaches one vault or a generic keyword ("depot", "warehouse") fits one.
 * A conversation that names nobody and nothing ("what are the open conflicts?") carries no client-specific
 * words: it cannot be about another client, so a key's only vault is selected for it.
 */
import { normalize, tokens } from '../store/text.js';
import { mentionedNames } from './mentioned-names.js';

export interface ScopeVault {
  id: string;
  name: string;
  client: string;
  keywords: string[];
  summary: string;
  people: string[];
}

export interface ScopeCandidate {
  id: string;
  name: string;
  score: number;
  signals: string[];
}

export interface ScopeDecision {
  selectedVaultIds: string[];
  reason: string;
  clarificationQuestion: string | null;
  candidates: ScopeCandidate[];
}

const has = (text: string, phrase: string) => {
  const p = normalize(phrase);
  return p.length > 0 && ` ${text} `.includes(` ${p} `);
};

const STOP = new Set(
  'about after again against their there these those which while where would could should other being having through between before during under above below within without across project client discovery engagement meeting meetings current'.split(
    ' ',
  ),
);

/**
 * Distinctive summary words: long enough to mean something, absent from the other vaults' summaries, and
 * not part of a person's name (people are their own signal, weighed by how many vaults know them).
 */
function summaryTerms(v: ScopeVault, others: ScopeVault[], nameWords: Set<string>): string[] {
  const otherWords = new Set(others.flatMap((o) => normalize(o.summary).split(' ')));
  return [...new Set(normalize(v.summary).split(' '))].filter(
    (w) => w.length >= 6 && !STOP.has(w) && !otherWords.has(w) && !nameWords.has(w),
  );
}

/**
 * The words a vault advertises as its own: its name, client and id, its people's names, its keywords, and the
 * capitalised words of its summary. A vault knows a name when it knows every word of it (a name half known,
 * "Porto Warehouse", is not known).
 */
function ownWords(v: ScopeVault): Set<string> {
  const capitalisedInSummary = v.summary.match(/\p{Lu}[\p{L}\p{N}'’]*/gu) ?? [];
  return new Set([v.name, v.client, v.id, ...v.people, ...v.keywords, ...capitalisedInSummary].flatMap(tokens));
}

const list = (names: string[], last = 'or') =>
  names.length <= 2 ? names.join(` ${last} `) : `${names.slice(0, -1).join(', ')} ${last} ${names[names.length - 1]}`;

export function resolveScope(conversation: string, vaults: ScopeVault[]): ScopeDecision {
  const text = normalize(conversation);
  if (vaults.length === 0) {
    return {
      selectedVaultIds: [],
      reason: 'This key reaches no vault.',
      clarificationQuestion: 'This key reaches no vault yet. Which vault should it be granted?',
      candidates: [],
    };
  }
  const holders = (pick: (v: ScopeVault) => string[]) => {
    const count = new Map<string, number>();
    for (const v of vaults) for (const x of new Set(pick(v).map(normalize))) count.set(x, (count.get(x) ?? 0) + 1);
    return count;
  };
  const personHolders = holders((v) => v.people);
  const keywordHolders = holders((v) => v.keywords);
  const nameWords = new Set(vaults.flatMap((v) => v.people.flatMap((p) => normalize(p).split(' '))));
  // Names the conversation mentions (people, organisations, sites), and which vaults know each one.
  const names = mentionedNames(conversation);
  const own = vaults.map(ownWords);
  const knownBy = new Map(names.map((n) => [n, vaults.filter((_, i) => tokens(n).every((w) => own[i]!.has(w)))]));
  const people = new Set(vaults.flatMap((v) => v.people.map(normalize)));

  // A keyword one vault matches whose distinctive word another vault's keyword also holds ("agency spend" and
  // "agency labour"): that word is what the conversation is about, and both engagements have it, so the match
  // is split between them and cannot decide alone.
  const keywordWords = (k: string) => tokens(k).filter((w) => w.length >= 4 && !STOP.has(w));
  const sharedTopics = new Map<string, ScopeVault[]>();
  for (const v of vaults) {
    for (const k of v.keywords.filter((k) => has(text, k))) {
      for (const w of keywordWords(k)) {
        const holders = vaults.filter((x) => x.keywords.some((k2) => keywordWords(k2).includes(w)));
        if (holders.length > 1) sharedTopics.set(w, holders);
      }
    }
  }

  const named: ScopeVault[] = [];
  const candidates = vaults.map((v) => {
    const signals: string[] = [];
    let score = 0;
    const explicit = [v.name, v.client, v.id].find((n) => has(text, n));
    if (explicit) {
      named.push(v);
      score += 10;
      signals.push(`names the vault ("${explicit}")`);
    }
    const topics = [...sharedTopics]
      .filter(([, holders]) => holders.includes(v))
      .map(([w, holders]) => ({ w, n: holders.length }));
    for (const { w, n } of topics) {
      score += 2 / n;
      signals.push(`"${w}" (shared by ${n} vaults)`);
    }
    for (const k of v.keywords) {
      if (!has(text, k) || keywordWords(k).some((w) => sharedTopics.has(w))) continue;
      const shared = keywordHolders.get(normalize(k)) ?? 1;
      score += 2 / shared;
      signals.push(shared > 1 ? `keyword "${k}" (shared by ${shared} vaults)` : `keyword "${k}"`);
    }
    for (const p of new Set(v.people)) {
      if (!has(text, p)) continue;
      const shared = personHolders.get(normalize(p)) ?? 1;
      score += 3 / shared;
      signals.push(shared > 1 ? `${p} (in ${shared} vaults)` : `${p} (only in this vault)`);
    }
    for (const n of names) {
      const holders = knownBy.get(n)!;
      if (!holders.includes(v) || people.has(normalize(n))) continue; // people are scored above
      score += 2 / holders.length;
      signals.push(holders.length > 1 ? `"${n}" (known to ${holders.length} vaults)` : `name "${n}"`);
    }
    const terms = summaryTerms(
      v,
      vaults.filter((o) => o !== v),
      nameWords,
    ).filter((w) => has(text, w));
    if (terms.length) {
      score += Math.min(3, terms.length * 0.5);
      signals.push(`summary terms: ${terms.slice(0, 5).join(', ')}`);
    }
    return { id: v.id, name: v.name, score: Math.round(score * 100) / 100, signals };
  });
  candidates.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  const scored = candidates.filter((c) => c.score > 0);

  if (named.length) {
    return {
      selectedVaultIds: named.map((v) => v.id),
      reason: `The conversation names ${list(named.map((v) => `"${v.name}"`))}.`,
      clarificationQuestion: null,
      candidates,
    };
  }
  const unknown = names.filter((n) => !knownBy.get(n)!.length).map((n) => `"${n}"`);
  if (unknown.length) {
    const mentioned = `The conversation mentions ${list(unknown, 'and')}`;
    const question =
      vaults.length === 1
        ? `${mentioned}, unknown to "${vaults[0]!.name}", the only vault this key reaches. Is this about "${vaults[0]!.name}", or about another client?`
        : `${mentioned}, unknown to the vaults this key reaches. Which engagement is this about: ${list(vaults.map((v) => `"${v.name}"`))}, or another client?`;
    return {
      selectedVaultIds: [],
      reason: `${mentioned}, which no vault this key reaches knows: it may be about another client.`,
      clarificationQuestion: question,
      candidates,
    };
  }
  if (vaults.length === 1) {
    const [only, fit] = [vaults[0]!, candidates[0]!];
    const why =
      fit.score > 0
        ? `the conversation fits it: ${fit.signals.join('; ')}`
        : names.length
          ? `the names the conversation mentions (${list(
              names.map((n) => `"${n}"`),
              'and',
            )}) are its own`
          : 'the conversation names no person, organisation or site, so it is not about another client';
    const reason = `This key reaches only "${only.name}", and ${why}.`;
    return { selectedVaultIds: [only.id], reason, clarificationQuestion: null, candidates };
  }
  const [top, second] = scored;
  if (top && top.score >= 2 && (!second || top.score >= 2 * second.score)) {
    return {
      selectedVaultIds: [top.id],
      reason: `"${top.name}" fits the conversation: ${top.signals.join('; ')}.`,
      clarificationQuestion: null,
      candidates,
    };
  }
  if (top) {
    const close = scored.filter((c) => c.score * 2 > top.score).map((c) => `"${c.name}"`);
    const shared = top.signals
      .filter((s) => / vaults\)/.test(s))
      .map((s) => s.replace(/ \((in|shared by|known to) \d+ vaults\)/, ''));
    const why = shared.length
      ? `${list(shared)} ${shared.length === 1 ? 'appears' : 'appear'} in more than one engagement. `
      : '';
    return {
      selectedVaultIds: [],
      reason: `The conversation fits ${close.length} vaults about equally.`,
      clarificationQuestion: `${why}Which engagement is this about: ${list(close)}?`,
      candidates,
    };
  }
  return {
    selectedVaultIds: [],
    reason: 'Nothing in the conversation points to a vault.',
    clarificationQuestion: `Which engagement is this about: ${list(vaults.map((v) => `"${v.name}"`))}?`,
    candidates,
  };
}
