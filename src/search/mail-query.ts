/**
 * Gmail-style search queries for `find_email_thread`: parse a query once, then test it against messages.
 *
 * The pipeline is deliberately small and in three steps, so each can be read (and tested) on its own:
 *   1. `tokenize`  – characters to tokens (words, "phrases", operators, parentheses, OR, -): mail-query-tokenize.ts
 *   2. `Parser`    – recursive descent into an AST of and / or / not / leaf nodes: mail-query-parse.ts
 *   3. `evaluate`  – one AST against one message: mail-query-match.ts
 * The shapes they share are in mail-query-ast.ts; this module is the one the tools import.
 *
 * Supported syntax (what Gmail does, where it matters to a mailbox of plain messages):
 *   word                 every word must occur somewhere in the message (see "Word rule" below)
 *   "a phrase"           those words, adjacent and in that order, within one field
 *   from:x to:x cc:x     x is a substring of the address or display name; `to:` also looks at Cc (as Gmail)
 *   subject:x            x / "a phrase" / (a b) / {a b} in the subject
 *   filename:x           x is a substring of an attachment name (Gmail's operator; cheap to support here)
 *   has:attachment       at least one attachment
 *   newer_than:7d        sent within the last 7 days; units h, d, w, m (30 days), y (365 days)
 *   older_than:7d        sent before that; exactly the complement of newer_than for a valid date
 *   after:2026/11/18     sent at or after 00:00 UTC that day (also 2026-11-18 or a full ISO date-time)
 *   before:2026/11/18    sent before 00:00 UTC that day (exclusive)
 *   -term                negation of any term, phrase, operator or group
 *   a OR b               either; `OR` only in upper case (lower-case `or` is a word, as in Gmail)
 *   {a b}                a OR b
 *   ( … )                grouping, nested to any depth
 *   a b, a AND b         both (juxtaposition is AND)
 *
 * Precedence follows Gmail: OR binds tighter than juxtaposition, so `a b OR c` is `a AND (b OR c)`.
 * An unknown operator such as `label:urgent` is not an error: like Gmail, it is searched as text, i.e. the
 * word sequence "label urgent".
 *
 * Word rule: text is normalized (NFD, combining marks removed, lower case, every run of characters that are
 * not letters or digits becomes one space), so `resume` finds "Résumé" and punctuation never matters.
 * A single query word matches a word of the text when it equals it, or when the query word has at least 4
 * characters and is a prefix of it (`inve` finds "inventory", `inv` does not: short prefixes match too much).
 * A quoted phrase, and an unquoted token that normalizes to several words (`ana@client.com`, `label:x`,
 * `q4-report`), must match whole words, adjacent and in order, within a single field (subject, body, an
 * address…); a quoted single word (`"inve"`) must match a whole word.
 *
 * Normalization is the one rule of `src/store/text.ts`, shared with every other text match.
 */
export { MailQueryError, type MailMessage, type MailQuery, type MailQueryNode } from './mail-query-ast.js';
export { parseMailQuery } from './mail-query-parse.js';
export { matchesMessage } from './mail-query-match.js';
