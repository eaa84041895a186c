// `npm run fixtures:schema`: writes the fixture format's JSON Schema (generated from the zod source).
import { writeFileSync } from 'node:fs';
import { fixtureJsonSchema } from '../src/vault-format/json-schema.js';

writeFileSync('fixtures/vault-fixture.v1.schema.json', `${JSON.stringify(fixtureJsonSchema(), null, 2)}\n`);
process.stderr.write('wrote fixtures/vault-fixture.v1.schema.json\n');
