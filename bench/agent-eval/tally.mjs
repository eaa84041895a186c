#!/usr/bin/env node
/** Calls per question (and errors, bytes read) from an EVAL_LOG written by call.mjs: node bench/agent-eval/tally.mjs <log>. */
import { readFileSync } from 'node:fs';

const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const by = new Map();
for (const l of lines) {
  const q = by.get(l.question) ?? { calls: 0, errors: 0, bytes: 0, tools: [] };
  q.calls += 1;
  q.errors += l.ok ? 0 : 1;
  q.bytes += l.bytes;
  q.tools.push(l.tool);
  by.set(l.question, q);
}
for (const [q, t] of [...by].sort()) console.log(`${q}\t${t.calls} calls\t${t.errors} errors\t${Math.round(t.bytes / 1024)} KB\t${t.tools.join(' ')}`);
console.log(`total\t${lines.length} calls over ${by.size} questions`);
