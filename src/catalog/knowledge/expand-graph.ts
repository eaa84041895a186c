import { z } from 'zod';
import { defineTool } from '../define.js';
import { edge, entityType } from '../shapes.js';
import { dedupedEdges, edgesOf, getEntityRow } from '../../store/entities.js';
import { notFound } from '../../service/errors.js';

export const DEPTH2_EDGE_CAP = 120;

export default defineTool({
  name: 'expand_graph',
  title: 'Expand the entity graph',
  description:
    "The neighbourhood of an entity. Depth 1: its edges. Depth 2: also its neighbours' edges, each second-hop relation prefixed with the intermediate node (\"Dock Scheduling › depends_on\"), strongest first, capped at 120 edges.",
  input: {
    entityId: z.string().min(1),
    depth: z.union([z.literal(1), z.literal(2)]).default(1).describe('1 (default) or 2'),
  },
  output: z.object({
    root: z.object({ entityId: z.string(), name: z.string(), type: entityType }),
    depth: z.number().int(),
    edges: z.array(edge.extend({ from: z.string().describe('entityId the edge starts from (the root, or the intermediate node)'), hop: z.number().int() })),
    truncated: z.boolean().describe('true when depth 2 had more than 120 edges'),
  }),
  run: ({ entityId, depth }, { db, vault }) => {
    const root = getEntityRow(db, vault.id, entityId);
    if (!root) throw notFound('entity', entityId, vault.name);
    const first = dedupedEdges(edgesOf(db, vault.id, entityId)).map((e) => ({ ...e, from: entityId, hop: 1 }));
    let edges = first;
    let truncated = false;
    if (depth === 2) {
      const seen = new Set([entityId]);
      const second = [];
      for (const via of first) {
        if (seen.has(via.entityId)) continue;
        seen.add(via.entityId);
        for (const e of dedupedEdges(edgesOf(db, vault.id, via.entityId))) {
          if (e.entityId === entityId) continue; // back to the root: already a first-hop edge
          second.push({ ...e, relation: `${via.name} › ${e.relation}`, from: via.entityId, hop: 2 });
        }
      }
      second.sort((a, b) => b.weight - a.weight);
      const room = Math.max(0, DEPTH2_EDGE_CAP - first.length);
      truncated = first.length + second.length > DEPTH2_EDGE_CAP;
      edges = [...first.slice(0, DEPTH2_EDGE_CAP), ...second.slice(0, room)];
    }
    return {
      root: { entityId: root.id, name: root.name, type: root.type },
      depth,
      edges,
      truncated,
    };
  },
});
