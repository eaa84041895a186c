/**
 * The knowledge graph (get_entity, expand_graph): the entity and its neighbours as a node-link graph, edge width
 * by weight, colour by type; clicking a node expands it (expand_graph through the host) and shows who it is.
 * Laid out by a small force simulation (repulsion, springs, centring), enough for a few hundred nodes.
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import { VAULT_PALETTE } from '../src/render/chart/style.js';
import { ENTITY_TYPES } from '../src/core/vocabulary.js';
import { callTool, h, plain, show, startView, words, type Json } from './common.js';
import { entityCard } from './entity-card.js';

interface Node {
  id: string;
  name: string;
  type: string;
  x: number;
  y: number;
  vx: number;
  vy: number;
  expanded: boolean;
}
interface Link {
  from: string;
  to: string;
  relation: string;
  weight: number;
}
interface EdgeIn {
  entityId: string;
  name: string;
  type: string;
  relation: string;
  direction: 'in' | 'out';
  weight: number;
  from?: string;
}

const SVG = 'http://www.w3.org/2000/svg';
const nodes = new Map<string, Node>();
const links = new Map<string, Link>();
let vaultArgs: Json = {};
let selected: string | undefined;
let status = '';
/** get_entity's answer shown as its card above the graph: the description and quotes the call asked for. */
let card: HTMLElement | null = null;

export const typeColour = (type: string): string =>
  VAULT_PALETTE[Math.max(0, ENTITY_TYPES.indexOf(type as never)) % VAULT_PALETTE.length]!;

function addNode(id: string, name: string, type: string, near?: Node): Node {
  let node = nodes.get(id);
  if (!node) {
    // The same graph lays out the same way every time: the start angle comes from the id.
    const angle = ([...id].reduce((sum, c) => (sum * 31 + c.charCodeAt(0)) >>> 0, 7) % 360) * (Math.PI / 180);
    node = {
      id,
      name,
      type,
      x: (near?.x ?? 0) + Math.cos(angle) * 60,
      y: (near?.y ?? 0) + Math.sin(angle) * 60,
      vx: 0,
      vy: 0,
      expanded: false,
    };
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
        a.vx += dx;
        a.vy += dy;
        b.vx -= dx;
        b.vy -= dy;
      }
    }
    for (const l of links.values()) {
      const a = nodes.get(l.from)!;
      const b = nodes.get(l.to)!;
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const d = Math.max(Math.hypot(dx, dy), 1);
      const pull = ((d - spring) / d) * 0.05;
      a.vx += dx * pull;
      a.vy += dy * pull;
      b.vx -= dx * pull;
      b.vy -= dy * pull;
    }
    for (const n of all) {
      n.vx -= n.x * 0.01;
      n.vy -= n.y * 0.01;
      const v = Math.hypot(n.vx, n.vy);
      const cap = 30 * heat + 1;
      if (v > cap) {
        n.vx *= cap / v;
        n.vy *= cap / v;
      }
      n.x += n.vx;
      n.y += n.vy;
      n.vx *= 0.6;
      n.vy *= 0.6;
    }
  }
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

let measurer: CanvasRenderingContext2D | null | undefined;
/** A label's width in the page's font (a canvas measures it; an estimate where there is none). */
function textWidth(text: string, size: number): number {
  measurer ??= document.createElement('canvas').getContext('2d');
  if (!measurer) return text.length * size * 0.6;
  measurer.font = `${size}px ${getComputedStyle(document.body).fontFamily}`;
  return measurer.measureText(text).width;
}

const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Whether the segment p–q passes through the box (Liang–Barsky clipping). */
function crosses(p: { x: number; y: number }, q: { x: number; y: number }, b: Box): boolean {
  let t0 = 0;
  let t1 = 1;
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  for (const [edge, dist] of [
    [-dx, p.x - b.x],
    [dx, b.x + b.w - p.x],
    [-dy, p.y - b.y],
    [dy, b.y + b.h - p.y],
  ] as const) {
    if (edge === 0) {
      if (dist < 0) return false;
      continue;
    }
    const t = dist / edge;
    if (edge < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

/**
 * Where each label goes: the first of a few places around its dot (below, above, right, left, then further out)
 * whose box touches no label already placed, no dot and no line. The most connected are placed first; a label
 * with no free place is left out (its dot still names itself on hover).
 */
function placeLabels(
  wanted: Node[],
  all: Node[],
  segments: [Node, Node][],
  radius: (n: Node) => number,
  scale: number,
): Map<string, Box> {
  const size = 12 * scale;
  const h = size * 1.25;
  const gap = 3 * scale;
  const dots: Box[] = all.map((n) => ({ x: n.x - radius(n), y: n.y - radius(n), w: radius(n) * 2, h: radius(n) * 2 }));
  const boxes: Box[] = [];
  const out = new Map<string, Box>();
  const order = [...wanted].sort(
    (a, b) => Number(b.id === selected) - Number(a.id === selected) || radius(b) - radius(a),
  );
  for (const n of order) {
    const w = textWidth(n.name, size) + 2 * scale;
    const r = radius(n);
    const candidates: Box[] = [];
    for (const far of [0, 1, 2, 3.5, 5]) {
      const d = r + gap + far * h;
      const diagonal = d * 0.72;
      candidates.push(
        { x: n.x - w / 2, y: n.y + d, w, h },
        { x: n.x - w / 2, y: n.y - d - h, w, h },
        { x: n.x + d, y: n.y - h / 2, w, h },
        { x: n.x - d - w, y: n.y - h / 2, w, h },
        { x: n.x + diagonal, y: n.y + diagonal, w, h },
        { x: n.x + diagonal, y: n.y - diagonal - h, w, h },
        { x: n.x - diagonal - w, y: n.y + diagonal, w, h },
        { x: n.x - diagonal - w, y: n.y - diagonal - h, w, h },
      );
    }
    const free = candidates.find(
      (c) =>
        !boxes.some((b) => overlaps(b, c)) &&
        !dots.some((b) => overlaps(b, c)) &&
        !segments.some(([p, q]) => crosses(p, q, c)),
    );
    if (!free) continue;
    boxes.push(free);
    out.set(n.id, free);
  }
  return out;
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
  const radius = (n: Node, scale: number) => (5 + Math.min(9, (degree.get(n.id) ?? 0) * 1.2)) * scale;
  const xs = all.map((n) => n.x);
  const ys = all.map((n) => n.y);
  // The graph is drawn in layout units and fitted to the frame; text, dots and lines keep their screen size. The
  // frame holds the dots and the labels as placed (a label may sit beside its dot, past the outermost one).
  const width = Math.max(document.body.clientWidth - 24, 320);
  const height = Math.max(360, Math.min(640, width * 0.7));
  const labelAll = all.length <= 60;
  const wanted = all.filter((n) => labelAll || n.expanded || n.id === selected || (degree.get(n.id) ?? 0) >= 3);
  const segments = [...links.values()].map((l) => [nodes.get(l.from)!, nodes.get(l.to)!] as [Node, Node]);
  let bounds = {
    minX: Math.min(...xs) - 20,
    maxX: Math.max(...xs) + 20,
    minY: Math.min(...ys) - 20,
    maxY: Math.max(...ys) + 20,
  };
  let scale = 0.6;
  let placed = new Map<string, Box>();
  for (let pass = 0; pass < 3; pass++) {
    const next = Math.max((bounds.maxX - bounds.minX) / width, (bounds.maxY - bounds.minY) / height, 0.6);
    if (pass > 0 && next <= scale * 1.02) break;
    scale = next;
    placed = placeLabels(wanted, all, segments, (n) => radius(n, scale), scale);
    const boxes = [...placed.values()];
    const margin = 8 * scale;
    bounds = {
      minX: Math.min(...xs.map((x) => x - 20 * scale), ...boxes.map((b) => b.x)) - margin,
      maxX: Math.max(...xs.map((x) => x + 20 * scale), ...boxes.map((b) => b.x + b.w)) + margin,
      minY: Math.min(...ys.map((y) => y - 20 * scale), ...boxes.map((b) => b.y)) - margin,
      maxY: Math.max(...ys.map((y) => y + 20 * scale), ...boxes.map((b) => b.y + b.h)) + margin,
    };
  }
  const { minX, maxX, minY, maxY } = bounds;
  const svg = svgEl('svg', {
    viewBox: `${minX} ${minY} ${maxX - minX} ${maxY - minY}`,
    width: '100%',
    height,
    role: 'img',
    'aria-label': 'knowledge graph',
  });
  for (const l of links.values()) {
    const a = nodes.get(l.from)!;
    const b = nodes.get(l.to)!;
    const line = svgEl('line', {
      x1: a.x,
      y1: a.y,
      x2: b.x,
      y2: b.y,
      'stroke-width': (0.8 + l.weight * 0.7) * scale,
      stroke: 'var(--muted)',
      'stroke-opacity': 0.45,
      'data-role': 'link',
    });
    line.append(svgEl('title', {}, `${a.name} ${words(l.relation)} ${b.name} (weight ${l.weight})`));
    svg.append(line);
  }
  // Labels (placed above) for the hubs, the expanded and the chosen; every node names itself on hover.
  for (const n of all) {
    const g = svgEl('g', { 'data-role': 'node', 'data-id': n.id, tabindex: 0, style: 'cursor:pointer' });
    const r = radius(n, scale);
    g.append(
      svgEl('circle', {
        cx: n.x,
        cy: n.y,
        r,
        fill: typeColour(n.type),
        stroke: n.id === selected ? 'var(--ink)' : n.expanded ? 'var(--bg)' : 'none',
        'stroke-width': (n.id === selected ? 3 : 2) * scale,
      }),
    );
    const at = placed.get(n.id);
    if (at)
      g.append(
        svgEl(
          'text',
          {
            x: at.x + at.w / 2,
            y: at.y + at.h * 0.78,
            'text-anchor': 'middle',
            'font-size': 12 * scale,
            fill: 'var(--ink)',
            'data-role': 'label',
            'paint-order': 'stroke',
            stroke: 'var(--bg)',
            'stroke-width': 3 * scale,
          },
          n.name,
        ),
      );
    g.append(svgEl('title', {}, `${n.name} (${n.type})${n.expanded ? '' : ': click to expand'}`));
    g.addEventListener('click', () => void expand(app, n.id));
    svg.append(g);
  }
  const chosen = selected ? nodes.get(selected) : undefined;
  show(
    h(
      'div',
      { class: 'bar' },
      h('strong', {}, chosen ? chosen.name : ''),
      chosen ? h('span', { class: 'chip' }, chosen.type) : null,
      h('span', { class: 'muted', 'data-role': 'count' }, `${nodes.size} entities, ${links.size} connections`),
      status ? h('span', { class: 'muted' }, status) : null,
    ),
    card,
    h(
      'div',
      { class: 'bar', 'data-role': 'legend' },
      ...ENTITY_TYPES.filter((t) => all.some((n) => n.type === t)).map((t) =>
        h('span', { class: 'chip' }, h('span', { style: `color:${typeColour(t)}` }, '● '), t),
      ),
      h('span', { class: 'muted' }, 'Line width: how often the link was mentioned. Click a dot to expand it.'),
    ),
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
    // get_entity (not expand_graph, whose answer has a root): the entity's card with its graph.
    if (!data.root) card = entityCard(app, data, vaultArgs);
    selected = merge(data);
    layout();
    draw(app);
  },
  theme: () => draw(app),
});
