#!/usr/bin/env node
// Rewrites the tool table of README.md (between the tools:start/end markers) from the built catalog.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const table = execFileSync(process.execPath, ['bin/vault-tools.js', 'tools', '--markdown'], {
  encoding: 'utf8',
}).trim();
const readme = readFileSync('README.md', 'utf8');
const updated = readme.replace(
  /<!-- tools:start -->[\s\S]*<!-- tools:end -->/,
  `<!-- tools:start -->\n${table}\n<!-- tools:end -->`,
);
writeFileSync('README.md', updated);
process.stderr.write(
  updated === readme ? 'README.md tool table already up to date\n' : 'README.md tool table updated\n',
);
