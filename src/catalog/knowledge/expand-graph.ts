import { z } from 'zod';
import { defineTool } from '../define.js';
import { edge, entityType } from '../shapes.js';
import { getEntityRow, slimEdges, strongestEdges } from '../../store/entities.js';
import { notFound } from '../../core/errors.js';

export const DEPTH2_EDGE_CAP = 120;

export default defineTool({
  name: 'expand_graph',
  view: 'graph',
  title: 'Expand the entity graph',
  description:
    'The neighbourhood of an entity. Depth 1: its edges. Depth 2: also its neighbours\' edges, each second-hop relation prefixed with the intermediate node ("Dock Scheduling › depends_on"), strongest first, capped at 120 edges.',
  input: {
    entityId: z.string().min(1),
    depth: z
      .union([z.literal(1), z.literal(2)])
      .default(1)
      .describe('1 (default) or 2'),
  },
  output: z.object({
    root: z.object({ entityId: z.string(), name: z.string(), type: entityType }),
    depth: z.number().int(),
    edges: z.array(
      edge.extend({
        from: z.string().describe('entityId the edge starts from (the root, or the intermediate node)'),
        hop: z.number().int(),
      }),
    ),
    truncated: z.boolean().describe('true when depth 2 had more than 120 edges'),
  }),
  run: ({ entityId, depth }, { db, vault }) => {
    const root = getEntityRow(db, vault.id, entityId);
    if (!root) throw notFound('entity', entityId, vault.name);
    if (depth === 1) {
      const edges = slimEdges(db, vault.id, entityId).map((e) => ({ ...e, from: entityId, hop: 1 }));
      return { root: { entityId: root.id, name: root.name, type: root.type }, depth, edges, truncated: false };
    }
    // One edge more than the cap tells whether the first hop alone overflows it.
    const first = strongestEdges(db, vault.id, [entityId], DEPTH2_EDGE_CAP + 1).map((e) => ({ ...e, hop: 1 }));
    const room = Math.max(0, DEPTH2_EDGE_CAP - first.length);
    const vias = [...new Set(first.map((e) => e.entityId))];
    // The room + 1 strongest second-hop edges: the one more tells whether anything was cut.
    const second = first.length > DEPTH2_EDGE_CAP ? [] : strongestEdges(db, vault.id, vias, room + 1, entityId);
    const names = new Map(first.map((e) => [e.entityId, e.name]));
    const edges = [
      ...first.slice(0, DEPTH2_EDGE_CAP),
      ...second.slice(0, room).map((e) => ({ ...e, relation: `${names.get(e.from)} › ${e.relation}`, hop: 2 })),
    ];
    const truncated = first.length + second.length > DEPTH2_EDGE_CAP;
    return {
      root: { entityId: root.id, name: root.name, type: root.type },
      depth,
      edges,
      truncated,
    };
  },
});
