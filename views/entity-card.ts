/**
 * An entity's card, as get_entity with evidence gives it: description, aliases, edges, and the verbatim quotes
 * with speaker and meeting. Shared by the findings explorer and the knowledge graph.
 */
import { h, when, words, type Json } from './common.js';

interface Edge { entityId: string; name: string; type: string; relation: string; direction: 'in' | 'out'; weight: number }
interface Quote { quote: string; speaker?: string | null; meetingName?: string | null; spokenAt?: string | null }

export function entityCard(entity: Json): HTMLElement {
  const aliases = (entity.aliases as string[] | undefined) ?? [];
  const edges = (entity.edges as Edge[] | undefined) ?? [];
  const evidence = (entity.evidence as Quote[] | undefined) ?? [];
  return h(
    'section',
    { class: 'card', 'data-role': 'entity-card' },
    h('h2', {}, String(entity.name ?? entity.id), ' ', h('span', { class: 'chip' }, String(entity.type ?? '')), ' ', h('span', { class: 'muted' }, `${entity.mentionCount ?? 0} mentions`)),
    entity.description ? h('p', {}, String(entity.description)) : null,
    aliases.length ? h('p', { class: 'muted' }, `Also called: ${aliases.join(', ')}`) : null,
    edges.length
      ? h('div', {}, h('h2', {}, 'Connections'), h('ul', { 'data-role': 'edges' }, ...edges.map((e) => h('li', {}, e.direction === 'out' ? `${entity.name} ${words(e.relation)} ` : '', h('strong', {}, e.name), e.direction === 'in' ? ` ${words(e.relation)} ${entity.name}` : '', h('span', { class: 'muted' }, ` · weight ${e.weight}`)))))
      : null,
    evidence.length
      ? h('div', {}, h('h2', {}, 'What was said'), ...evidence.map((q) => h('blockquote', { 'data-role': 'quote' }, `“${q.quote}”`, h('div', { class: 'muted' }, [q.speaker, q.meetingName, when(q.spokenAt)].filter(Boolean).join(' · ')))))
      : null,
  );
}
