import { z } from 'zod';
import { defineTool } from '../define.js';
import { listPeople } from '../../store/mail.js';
import { normalize } from '../../store/text.js';

export default defineTool({
  name: 'find_person',
  title: 'Find a person',
  description:
    "Looks up the vault's people registry by name, e-mail address or role fragment: name, e-mail, title, organisation. It is the ONLY source of an e-mail address: never guess or derive one from a pattern. Omit `query` to list everyone.",
  input: { query: z.string().max(200).optional().describe('name, address or role fragment') },
  output: z.object({
    people: z.array(
      z.object({ id: z.string(), name: z.string(), email: z.string(), title: z.string(), organisation: z.string() }),
    ),
  }),
  run: ({ query }, { db, vault }) => {
    const words = normalize(query ?? '')
      .split(' ')
      .filter(Boolean);
    const people = listPeople(db, vault.id);
    if (!words.length) return { people };
    // Every word must occur in the name, address, title or organisation; name hits rank first.
    const scored = people
      .map((p) => {
        const name = normalize(p.name);
        const all = `${name} ${p.email.toLowerCase()} ${normalize(p.title)} ${normalize(p.organisation)}`;
        if (!words.every((w) => all.includes(w))) return undefined;
        return { p, score: words.filter((w) => name.includes(w)).length };
      })
      .filter((x) => x !== undefined)
      .sort((a, b) => b.score - a.score || a.p.name.localeCompare(b.p.name));
    return { people: scored.map((x) => x.p) };
  },
});
