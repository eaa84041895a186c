#!/usr/bin/env node
// Every way vault-tools starts comes through here (the bin, `npx vault-tools`, the .mcpb's entry point), so the
// Node version is checked here, before anything that could load the SQLite binding: better-sqlite3 13 does not
// throw on a Node it does not support, it crashes the process. The lines are package.json's `engines`; a line
// newer than those runs (Node-API modules load on it), an older one gets one sentence and exit code 1.
// Plain JavaScript of the oldest syntax any Node still in use parses, and no static import of dist/.
import { readFileSync } from 'node:fs';

const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
const lines = [...engines.matchAll(/\^(\d+)/g)].map((m) => Number(m[1]));
const major = Number(process.versions.node.split('.')[0]);
if (major < Math.min(...lines)) {
  const names = `${lines.slice(0, -1).join(', ')} or ${lines.at(-1)}`;
  process.stderr.write(
    `vault-tools needs Node.js ${names} and this is Node.js ${process.versions.node} (${process.execPath}): install Node.js ${lines.at(-1)} (https://nodejs.org/en/download, or \`nvm install ${lines.at(-1)}\`) and run vault-tools with it.\n`,
  );
  process.exit(1);
}
await import('../dist/cli.js');
