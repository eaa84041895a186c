/**
 * The knowledge graph (get_entity, expand_graph): the entity and its neighbours as a node-link graph, edge width
 * by weight, colour by type; clicking a node expands it (expand_graph through the host) and shows who it is.
 * Laid out by a small force simulation (repulsion, springs, centring), enough for a few hundred nodes.
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import { VAULT_PALETTE } from '../src/render/chart/style.js';
import { ENTITY_TYPES } from '../src/core/vocabulary.js';
import { callTool, h, plain, show, startView, words, type Json } from './common.js';

interface Node { id: string; name: string; type: string; x: number; y: number; vx: number; vy: number; expanded: boolean }
interface Link { from: string; to: string; relation: string; weight: number }
interface EdgeIn { entityId: string; name: string; type: string; relation: string; direction: 'in' | 'out'; weight: number; from?: string }

const SVG = 'http://www.w3.org/2000/svg';
const nodes = new Map<string, Node>();
const links = new Map<string, Link>();
let vaultArgs: Json = {};
let selected: string | undefined;
let status = '';

export const typeColour = (type: string): string => VAULT_PALETTE[Math.max(0, ENTITY_TYPES.indexOf(type as never)) % VAULT_PALETTE.length]!;

function addNode(id: string, name: string, type: string, near?: Node): Node {
  let node = nodes.get(id);
  if (!node) {
    // The same graph lays out the same way every time: the start angle comes from the id.
    const angle = ([...id].reduce((sum, c) => (sum * 31 + c.charCodeAt(0)) >>> 0, 7) % 360) * (Math.PI / 180);
    node = { id, name, type, x: (near?.x ?? 0) + Math.cos(angle) * 60, y: (near?.y ?? 0) + Math.sin(angle) * 60, vx: 0, vy: 0, expanded: false };
    nodes.set(id, node);
  }
  return node;
}

/** Adds a get_entity or expand_graph answer: its root, its edges (from `from`, or the root), their ends. */
function merge(data: Json): string {
  const root = (data.root ?? data) as { entityId?: string; id?: string; name: string; type: string };
  const rootId = String(root.entityId ?? root.id);
  const rootNode = addNode(rootId, root.name, root.type);
  rootNode.expanded = true;
  for (const e of (data.edges ?? []) as EdgeIn[]) {
    const from = e.from ?? rootId;
    const near = nodes.get(from) ?? rootNode;
    addNode(e.entityId, e.name, e.type, near);
    const [a, b] = e.direction === 'out' ? [from, e.entityId] : [e.entityId, from];
    const key = `${a}|${e.relation}|${b}`;
    if (!links.has(key)) links.set(key, { from: a, to: b, relation: e.relation, weight: e.weight });
  }
  return rootId;
}

/** A few hundred steps of a plain force layout; positions persist, so an expansion only moves what it must. */
function layout(steps = 300): void {
  const all = [...nodes.values()];
  const spring = 90 + Math.min(60, all.length / 2);
  for (let step = 0; step < steps; step++) {
    const heat = 1 - step / steps;
    for (let i = 0; i < all.length; i++) {
      const a = all[i]!;
      for (let j = i + 1; j < all.length; j++) {
        const b = all[j]!;
        let dx = a.x - b.x;
        let dy = a.y - b.y;
        const d2 = Math.max(dx * dx + dy * dy, 1);
        if (d2 > 250_000) continue;
        const push = 2400 / d2;
        dx *= push;
        dy *= push;
        a.vx += dx; a.vy += dy; b.vx -= dx; b.vy -= dy;
      }
    }
    for (const l of links.values()) {
      const a = nodes.get(l.from)!;
      const b = nodes.get(l.to)!;
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const d = Math.max(Math.hypot(dx, dy), 1);
      const pull = ((d - spring) / d) * 0.05;
      a.vx += dx * pull; a.vy += dy * pull; b.vx -= dx * pull; b.vy -= dy * pull;
    }
    for (const n of all) {
      n.vx -= n.x * 0.01;
      n.vy -= n.y * 0.01;
      const v = Math.hypot(n.vx, n.vy);
      const cap = 30 * heat + 1;
      if (v > cap) { n.vx *= cap / v; n.vy *= cap / v; }
      n.x += n.vx; n.y += n.vy;
      n.vx *= 0.6; n.vy *= 0.6;
    }
  }
}

function svgEl(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = plain(text);
  return e;
}

function draw(app: App): void {
  const all = [...nodes.values()];
  const degree = new Map<string, number>();
  for (const l of links.values()) for (const id of [l.from, l.to]) degree.set(id, (degree.get(id) ?? 0) + 1);
  const xs = all.map((n) => n.x);
  const ys = all.map((n) => n.y);
  const pad = 110;
  const [minX, maxX, minY, maxY] = [Math.min(...xs) - pad, Math.max(...xs) + pad, Math.min(...ys) - 50, Math.max(...ys) + 60];
  // The graph is drawn in layout units and fitted to the frame; text, dots and lines keep their screen size.
  const width = Math.max(document.body.clientWidth - 24, 320);
  const height = Math.max(360, Math.min(640, width * 0.7));
  const scale = Math.max((maxX - minX) / width, (maxY - minY) / height, 0.6);
  const svg = svgEl('svg', { viewBox: `${minX} ${minY} ${maxX - minX} ${maxY - minY}`, width: '100%', height, role: 'img', 'aria-label': 'knowledge graph' });
  for (const l of links.values()) {
    const a = nodes.get(l.from)!;
    const b = nodes.get(l.to)!;
    const line = svgEl('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, 'stroke-width': (0.8 + l.weight * 0.7) * scale, stroke: 'var(--muted)', 'stroke-opacity': 0.45, 'data-role': 'link' });
    line.append(svgEl('title', {}, `${a.name} ${words(l.relation)} ${b.name} (weight ${l.weight})`));
    svg.append(line);
  }
  // Labels for the hubs, the expanded and the chosen; every node names itself on hover. Readable at 150 nodes.
  const labelAll = all.length <= 60;
  for (const n of all) {
    const g = svgEl('g', { 'data-role': 'node', 'data-id': n.id, tabindex: 0, style: 'cursor:pointer' });
    const r = (5 + Math.min(9, (degree.get(n.id) ?? 0) * 1.2)) * scale;
    g.append(svgEl('circle', { cx: n.x, cy: n.y, r, fill: typeColour(n.type), stroke: n.id === selected ? 'var(--ink)' : n.expanded ? 'var(--bg)' : 'none', 'stroke-width': (n.id === selected ? 3 : 2) * scale }));
    if (labelAll || n.expanded || n.id === selected || (degree.get(n.id) ?? 0) >= 3) g.append(svgEl('text', { x: n.x, y: n.y + r + 12 * scale, 'text-anchor': 'middle', 'font-size': 12 * scale, fill: 'var(--ink)', 'paint-order': 'stroke', stroke: 'var(--bg)', 'stroke-width': 3 * scale }, n.name));
    g.append(svgEl('title', {}, `${n.name} (${n.type})${n.expanded ? '' : ': click to expand'}`));
    g.addEventListener('click', () => void expand(app, n.id));
    svg.append(g);
  }
  const chosen = selected ? nodes.get(selected) : undefined;
  show(
    h('div', { class: 'bar' },
      h('strong', {}, chosen ? chosen.name : ''), chosen ? h('span', { class: 'chip' }, chosen.type) : null,
      h('span', { class: 'muted', 'data-role': 'count' }, `${nodes.size} entities, ${links.size} connections`),
      status ? h('span', { class: 'muted' }, status) : null),
    h('div', { class: 'bar', 'data-role': 'legend' }, ...ENTITY_TYPES.filter((t) => all.some((n) => n.type === t)).map((t) => h('span', { class: 'chip' }, h('span', { style: `color:${typeColour(t)}` }, '● '), t)), h('span', { class: 'muted' }, 'Line width: how often the link was mentioned. Click a dot to expand it.')),
    svg,
  );
}

async function expand(app: App, id: string): Promise<void> {
  selected = id;
  const node = nodes.get(id);
  if (!node || node.expanded) return draw(app);
  status = `expanding ${node.name}…`;
  draw(app);
  try {
    merge(await callTool(app, 'expand_graph', { ...vaultArgs, entityId: id }));
    status = '';
  } catch (err) {
    status = (err as Error).message;
  }
  layout(200);
  draw(app);
}

const app = startView('graph', {
  input(args) {
    vaultArgs = args.vault ? { vault: args.vault } : {};
  },
  result(data) {
    selected = merge(data);
    layout();
    draw(app);
  },
  theme: () => draw(app),
});
