/**
 * The quotations of a draft (check_quotes): text between “…”, "…", ‘…’ or '…', and Markdown block quotes
 * (lines starting with `>`), each with the speaker, date and meeting the draft attributes it to where it says so:
 * "— Tom Becker", "(Tom Becker, 12 Oct)", "Tom said", "said Tom", "Tom Becker: “…”", "As Tom put it, “…”".
 * A quotation inside another (a quote within a quote, a quotation in a block quote) is part of the outer one.
 * Plain text only: nothing here is markup or a query; the words are compared by ./align.ts.
 */

export interface Attribution {
  /** the attributing words as the draft has them */
  text: string;
  speaker: string;
  /** what the draft says around the name: a date ("12 Oct"), a meeting ("kickoff") */
  detail: string | null;
}

export interface Quotation {
  /** the quoted words, without the marks */
  text: string;
  /** where the quoted words are in the draft (UTF-16 offsets) */
  start: number;
  end: number;
  kind: 'inline' | 'block';
  attribution: Attribution | null;
}

/** A name as drafts write one: one to four capitalised words ("Tom", "Tom Becker", "Mary-Jane O'Neill"). */
const NAME = String.raw`\p{Lu}[\p{L}'’.\-]*(?:[ \u00a0]+(?:(?:van|von|de|der|da|di|del|la|le)[ \u00a0]+)?\p{Lu}[\p{L}'’.\-]*){0,3}`;
const VERB = String.raw`(?:said|says|say|told\s+(?:us|me|them|the\s+\w+)|tells\s+\w+|added|adds|explained|explains|noted|notes|put\s+it|puts\s+it|recalled|admitted|warned|argued|replied|answered|remarked|observed|insisted|stressed|commented|wrote|asked|claimed|confirmed|conceded|continued)`;
/** Words that start a sentence with a capital but are not a name. */
const NOT_NAMES = new Set([
  'I',
  'We',
  'He',
  'She',
  'They',
  'It',
  'You',
  'As',
  'The',
  'This',
  'That',
  'And',
  'But',
  'So',
  'Then',
  'One',
  'Someone',
  'Everyone',
  'Nobody',
  'Somebody',
]);

const after: RegExp[] = [
  // “…” — Tom Becker, kickoff, 12 Oct   /   “…” - Tom
  new RegExp(String.raw`^[\s,.;:!?]{0,3}[—–-]{1,2}[ \u00a0]*(${NAME})(?:[ \u00a0]*[,(][ \u00a0]*([^\n)]{1,80}))?`, 'u'),
  // “…” (Tom Becker, 12 Oct)
  new RegExp(String.raw`^[\s,.;:]{0,3}\([ \u00a0]*(${NAME})(?:[ \u00a0]*[,;][ \u00a0]*([^\n)]{1,80}))?\)`, 'u'),
  // “…”, Tom said   /   “…” Tom Becker told us
  new RegExp(String.raw`^[\s,.;:!?]{0,3}(${NAME})(?:[ \u00a0]*\(([^\n)]{1,80})\))?[ \u00a0]+${VERB}\b`, 'u'),
  // “…”, said Tom Becker
  new RegExp(String.raw`^[\s,.;:!?]{0,3}${VERB}[ \u00a0]+(${NAME})(?:[ \u00a0]*[,(][ \u00a0]*([^\n)]{1,80}))?`, 'u'),
];
const before: RegExp[] = [
  // Tom Becker said: “…”   /   As Tom put it, “…”   /   Tom told us in the kickoff that “…”
  new RegExp(
    String.raw`(?:^|[^\p{L}])(${NAME})(?:[ \u00a0]*\(([^\n)]{1,80})\))?[ \u00a0]+${VERB}(?:[ \u00a0]+(?:in|at|on|during)[ \u00a0]+([^\n,:“"‘']{1,60}))?(?:[ \u00a0]+that)?[ \u00a0]*[,:]?[ \u00a0]*$`,
    'u',
  ),
  // Tom Becker: “…”
  new RegExp(
    String.raw`(?:^|\n|[-*]\s)[ \u00a0]*(${NAME})[ \u00a0]*(?:\(([^\n)]{1,80})\))?[ \u00a0]*:[ \u00a0]*$`,
    'u',
  ),
];

const clean = (s: string | undefined) => (s ?? '').replace(/[\s.,;:]+$/u, '').trim();

function attributionFrom(m: RegExpExecArray | null): Attribution | null {
  if (!m) return null;
  // "As Tom put it": the capitalised words before the name are not the name.
  const words = clean(m[1]).split(/[ \u00a0]+/u);
  while (words.length && NOT_NAMES.has(words[0]!)) words.shift();
  const speaker = words.join(' ');
  if (!speaker) return null;
  const detail = [m[2], m[3]].map(clean).filter(Boolean).join(', ');
  return { text: m[0].trim(), speaker, detail: detail || null };
}

/** The attribution next to a quotation: the words right after it on its line, else the words right before it. */
function attributionAround(draft: string, openAt: number, closeAt: number): Attribution | null {
  const lineEnd = draft.indexOf('\n', closeAt);
  const rest = draft.slice(closeAt, Math.min(lineEnd < 0 ? draft.length : lineEnd, closeAt + 160));
  for (const re of after) {
    const a = attributionFrom(re.exec(rest));
    if (a) return a;
  }
  const lineStart = draft.lastIndexOf('\n', openAt - 1) + 1;
  const lead = draft.slice(Math.max(lineStart, openAt - 160), openAt);
  for (const re of before) {
    const a = attributionFrom(re.exec(lead));
    if (a) return a;
  }
  return null;
}

interface Span {
  open: number;
  start: number;
  end: number;
  close: number;
  kind: 'inline' | 'block';
  attribution?: Attribution | null;
}

/** A quote mark opens where a word may start: at the start, after a space or an opening bracket or dash. */
const opensAt = (draft: string, i: number) => i === 0 || /[\s([{—–\-/]/u.test(draft[i - 1]!);
/** …and closes after a word, before anything but a letter or digit (so "don't" and "it's" are not quotes). */
const closesAt = (draft: string, i: number) =>
  i > 0 && !/\s/u.test(draft[i - 1]!) && (i + 1 >= draft.length || !/[\p{L}\p{N}]/u.test(draft[i + 1]!));

/**
 * Spans between an opening mark and its closing mark; a quotation runs at most one paragraph. One pass: the
 * marks that may close and the paragraph breaks are listed once and walked with pointers, so a draft full of
 * unmatched marks costs no more than one with none.
 */
function markedSpans(draft: string, open: string, close: string): Span[] {
  const closers: number[] = [];
  for (let j = draft.indexOf(close); j !== -1; j = draft.indexOf(close, j + 1)) if (closesAt(draft, j)) closers.push(j);
  const breaks: number[] = [];
  for (let b = draft.indexOf('\n\n'); b !== -1; b = draft.indexOf('\n\n', b + 1)) breaks.push(b);
  const spans: Span[] = [];
  const symmetric = open === close;
  let c = 0;
  let b = 0;
  for (let i = draft.indexOf(open); i !== -1; i = draft.indexOf(open, i + 1)) {
    if ((symmetric && !opensAt(draft, i)) || /\s/u.test(draft[i + 1] ?? ' ')) continue;
    while (c < closers.length && closers[c]! <= i) c++;
    while (b < breaks.length && breaks[b]! < i) b++;
    const found = closers[c];
    if (found === undefined) break; // nothing closes after here
    if (b < breaks.length && breaks[b]! < found) continue; // not closed within its paragraph
    spans.push({ open: i, start: i + 1, end: found, close: found + 1, kind: 'inline' });
    i = found; // the next quotation opens after this one closes
  }
  return spans;
}

/** Markdown block quotes: runs of lines starting with `>`; a last line "— Name" is its attribution. */
function blockSpans(draft: string): Span[] {
  const spans: Span[] = [];
  const re = /(?:^|\n)((?:[ \t]{0,3}>[^\n]*(?:\n|$))+)/g;
  for (const m of draft.matchAll(re)) {
    const blockAt = m.index! + (m[0].startsWith('\n') ? 1 : 0);
    const lines = m[1]!.replace(/\n$/, '').split('\n');
    let attribution: Attribution | null = null;
    const last = lines[lines.length - 1]!.replace(/^[ \t]{0,3}>[ \t]?/, '');
    const signed = new RegExp(
      String.raw`^\s*[—–-]{1,2}[ \u00a0]*(${NAME})(?:[ \u00a0]*[,(][ \u00a0]*([^\n)]{1,80}))?\s*\)?\s*$`,
      'u',
    ).exec(last);
    if (signed && lines.length > 1) {
      attribution = attributionFrom(signed);
      lines.pop();
    }
    const end = blockAt + lines.join('\n').length;
    // The block's text starts after the first `>`; the words are read from the whole span, `>` being punctuation.
    const first = draft.indexOf('>', blockAt) + 1;
    if (!attribution) attribution = attributionAround(draft, blockAt, end) ?? precedingLine(draft, blockAt);
    spans.push({ open: blockAt, start: first, end, close: end, kind: 'block', attribution });
  }
  return spans;
}

/** "Tom Becker said:" on the line before a block quote. */
function precedingLine(draft: string, blockAt: number): Attribution | null {
  const prev =
    draft
      .slice(Math.max(0, blockAt - 160), Math.max(0, blockAt - 1))
      .split('\n')
      .pop() ?? '';
  for (const re of before) {
    const a = attributionFrom(re.exec(prev));
    if (a) return a;
  }
  return null;
}

/** Every quotation of the draft, in order, the outermost only. */
export function findQuotations(draft: string): Quotation[] {
  const spans = [
    ...blockSpans(draft),
    ...markedSpans(draft, '“', '”'),
    ...markedSpans(draft, '"', '"'),
    ...markedSpans(draft, '‘', '’'),
    ...markedSpans(draft, "'", "'"),
    ...markedSpans(draft, '«', '»'),
  ].sort((a, b) => a.open - b.open || b.close - a.close);
  const outer: Span[] = [];
  for (const s of spans) {
    const last = outer[outer.length - 1];
    if (last && s.open < last.close) continue; // inside (or overlapping) one already taken
    outer.push(s);
  }
  return outer.map((s) => {
    let text = draft.slice(s.start, s.end);
    if (s.kind === 'block') text = text.replace(/\n[ \t]{0,3}>[ \t]?/g, '\n').trim();
    return {
      text,
      start: s.start,
      end: s.end,
      kind: s.kind,
      attribution: s.attribution !== undefined ? s.attribution : attributionAround(draft, s.open, s.close),
    };
  });
}
