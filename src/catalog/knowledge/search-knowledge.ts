import { z } from 'zod';
import { defineTool } from '../define.js';
import { entityType, finding, limitArg } from '../shapes.js';
import { getEntityRows, toFinding } from '../../store/entities.js';
import { nameIndex, type NameMatch } from '../../search/names.js';
import { normalize } from '../../store/text.js';
import { invalidArgument } from '../../core/errors.js';

export default defineTool({
  name: 'search_knowledge',
  view: 'findings',
  title: 'Search entities by name',
  description:
    'Finds entities (departments, people, processes, systems, problems, opportunities, KPIs) by name or alias, tolerant of case, accents, word order and small typos; exact matches rank first, then prefixes, then near misses. Returns the entities with descriptions; follow up with get_entity. This searches names, not what was said: use search_transcripts for that.',
  input: {
    query: z.string().min(1).max(200).describe('a name, alias or part of one'),
    type: entityType.optional(),
    limit: limitArg(1, 50, 10),
  },
  output: z.object({
    entities: z.array(
      finding.extend({
        match: z.enum(['exact', 'prefix', 'fuzzy']),
        matchedName: z.string().describe('the name or alias that matched'),
        score: z.number(),
      }),
    ),
    total: z.number().int().describe('matches before the limit'),
  }),
  run: ({ query, type, limit }, { db, vault }) => {
    const q = normalize(query);
    if (!q) throw invalidArgument('query', 'needs at least one letter or digit');
    const best = new Map<string, NameMatch & { name: string }>();
    for (const { name: n, match: m } of nameIndex(db, vault.id).match(q)) {
      if (type && n.type !== type) continue;
      const score = m.score - (n.isAlias ? 0.01 : 0); // the name beats an equal alias
      const seen = best.get(n.entityId);
      if (!seen || score > seen.score) best.set(n.entityId, { ...m, score, name: n.name });
    }
    const rows = new Map(getEntityRows(db, vault.id, [...best.keys()]).map((r) => [r.id, r]));
    const ranked = [...best]
      .map(([id, m]) => ({ row: rows.get(id)!, m }))
      .sort(
        (a, b) =>
          b.m.score - a.m.score || b.row.mention_count - a.row.mention_count || a.row.name.localeCompare(b.row.name),
      );
    return {
      entities: ranked.slice(0, limit).map(({ row, m }) => ({
        ...toFinding(row),
        match: m.kind,
        matchedName: m.name,
        score: Math.round(m.score * 1000) / 1000,
      })),
      total: ranked.length,
    };
  },
});
