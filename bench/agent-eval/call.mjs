#!/usr/bin/env node
/**
 * The one way the evaluated model calls a tool, logged so calls per question can be counted:
 *
 *   node bench/agent-eval/call.mjs <question id> <tool> '<json arguments>'
 *
 * Runs `vault-tools call` of the build under evaluation (EVAL_BIN, a bin/vault-tools.js) on its store
 * (EVAL_DATA_DIR), prints its answer, and appends {question, tool, arguments, ok, bytes} to EVAL_LOG (JSON lines).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const [question, tool, json = '{}'] = process.argv.slice(2);
const { EVAL_BIN, EVAL_DATA_DIR, EVAL_LOG } = process.env;
if (!question || !tool || !EVAL_BIN || !EVAL_DATA_DIR || !EVAL_LOG) {
  process.stderr.write("usage: EVAL_BIN=… EVAL_DATA_DIR=… EVAL_LOG=… call.mjs <question id> <tool> '<json>'\n");
  process.exit(2);
}
let out;
let ok = true;
try {
  out = execFileSync(process.execPath, [EVAL_BIN, 'call', tool, json, '--data-dir', EVAL_DATA_DIR], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
} catch (err) {
  ok = false;
  out = err.stdout || err.stderr || String(err);
}
let args;
try {
  args = JSON.parse(json);
} catch {
  args = json;
}
appendFileSync(EVAL_LOG, `${JSON.stringify({ question, tool, arguments: args, ok, bytes: Buffer.byteLength(out) })}\n`);
process.stdout.write(out);
