/**
 * One open conflict a slide: its title; what kind of disagreement it is and its status; the first two claims
 * side by side with who said them, where and when; under them what the team knows so far (the conflict's note,
 * else what the vault says about the finding) and the next step (the task or plan step that names it). The
 * speaker notes cite every claim read (CLAIMS_READ), with meeting ids and turns.
 */
import type { DeckContent } from './content.js';
import type { DeckConflict } from './featured.js';
import { fit, heightOf, slideText, wrapLines } from './fit.js';
import {
  attribution,
  base,
  evidenceLine,
  plural,
  quoteText,
  titled,
  type Pres,
  type Slide,
  type TextRun,
} from './kit.js';
import { COLOR, GRID_IN, SIZE } from './look.js';
import type { FeaturedQuote } from '../export/featured.js';
import type { NextStep } from '../../store/featured-reads.js';
import { shortDate } from '../../time.js';

const PANEL_PAD = 0.3;
const PANEL_ATTRIBUTION_H = heightOf(3, SIZE.body) + 0.04;
const PANEL_GAP = 0.7;
/** The claims' panels take at most this much of the slide, so what is known and the next step have room below. */
const PANEL_MAX_H = 2.75;
const PANEL_MIN_H = 2.4;

export function conflictSlide(pres: Pres, _c: DeckContent, conflict: DeckConflict): void {
  const slide = titled(pres, conflict.title);
  const status = `Open since ${shortDate(conflict.raised)}${conflict.updated !== conflict.raised ? `, last updated ${shortDate(conflict.updated)}` : ''}.`;
  slide.addText(
    [
      {
        text: fit(conflict.kind.sentence, { w: GRID_IN.w, h: 1, size: SIZE.body, bold: true, maxLines: 1 }),
        options: { bold: true, color: COLOR.ink, breakLine: true },
      },
      { text: status, options: { fontSize: SIZE.small, color: COLOR.muted } },
    ],
    base({ x: GRID_IN.x, y: GRID_IN.top, w: GRID_IN.w, h: 0.55, fontSize: SIZE.body }),
  );
  const panelW = (GRID_IN.w - PANEL_GAP) / 2;
  const top = GRID_IN.top + 0.72;
  const shown = conflict.claims.slice(0, 2);
  const quoteRoom = { w: panelW - 2 * PANEL_PAD, h: PANEL_MAX_H - 2 * PANEL_PAD - PANEL_ATTRIBUTION_H - 0.25 };
  const lines = Math.max(
    1,
    ...shown.map(
      (cl) =>
        wrapLines(fit(quoteText(cl.quote), { ...quoteRoom, size: SIZE.claim }), { w: quoteRoom.w, size: SIZE.claim })
          .length,
    ),
  );
  const panelH = Math.min(
    PANEL_MAX_H,
    Math.max(PANEL_MIN_H, 2 * PANEL_PAD + heightOf(lines, SIZE.claim) + 0.25 + PANEL_ATTRIBUTION_H),
  );
  const colors = [COLOR.accent, COLOR.second];
  shown.forEach((claim, i) =>
    claimPanel(slide, claim, { x: GRID_IN.x + i * (panelW + PANEL_GAP), y: top, w: panelW, h: panelH }, colors[i]!),
  );
  if (shown.length < 2) {
    slide.addText(
      'Only one claim is recorded for this conflict.',
      base({
        x: GRID_IN.x + panelW + PANEL_GAP,
        y: top + 0.3,
        w: panelW,
        h: 0.5,
        fontSize: SIZE.body,
        italic: true,
        color: COLOR.muted,
      }),
    );
  } else {
    const vs = { x: GRID_IN.x + panelW + PANEL_GAP / 2 - 0.3, y: top + panelH / 2 - 0.3, w: 0.6, h: 0.6 };
    slide.addShape('ellipse', { ...vs, fill: { color: COLOR.white }, line: { color: COLOR.rule, width: 1 } });
    slide.addText(
      'vs',
      base({ ...vs, fontSize: SIZE.body, bold: true, color: COLOR.muted, align: 'center', valign: 'middle' }),
    );
  }
  const more = conflict.claimCount - shown.length;
  const moreH = more > 0 ? 0.34 : 0;
  if (more > 0) {
    slide.addText(
      `And ${plural(more, 'more claim')} (in the speaker notes).`,
      base({
        x: GRID_IN.x,
        y: top + panelH + 0.06,
        w: GRID_IN.w,
        h: 0.28,
        fontSize: SIZE.small,
        italic: true,
        color: COLOR.muted,
      }),
    );
  }
  // Under the claims: what is known so far (left) and the next step (right).
  const y = top + panelH + moreH + 0.3;
  const h = GRID_IN.bottom - y;
  const leftW = GRID_IN.w * 0.6;
  const rightX = GRID_IN.x + leftW + GRID_IN.gap;
  const rightW = GRID_IN.w - leftW - GRID_IN.gap;
  const known = slideText(conflict.note)
    ? { heading: 'What we know so far', text: slideText(conflict.note) }
    : {
        heading: `About ${slideText(conflict.about)}`,
        text: slideText(conflict.aboutDescription) || 'Nothing more is recorded about it yet.',
      };
  section(slide, known.heading, known.text, { x: GRID_IN.x, y, w: leftW, h });
  section(slide, 'Next step', nextStepText(conflict.nextStep), { x: rightX, y, w: rightW, h });
  slide.addNotes(notes(conflict));
}

/** A small heading in the accent colour and its text under it, fitted to the box. */
function section(
  slide: Slide,
  heading: string,
  text: string,
  box: { x: number; y: number; w: number; h: number },
): void {
  const headingH = heightOf(1, SIZE.small) + 0.06;
  const runs: TextRun[] = [
    {
      text: fit(heading, { w: box.w, h: 1, size: SIZE.small, bold: true, maxLines: 1 }).toUpperCase(),
      options: { fontSize: SIZE.small, bold: true, color: COLOR.accent, breakLine: true, paraSpaceAfter: 3 },
    },
    {
      text: fit(text, { w: box.w, h: box.h - headingH - 0.05, size: SIZE.body }),
      options: { fontSize: SIZE.body, color: COLOR.text },
    },
  ];
  slide.addShape('rect', {
    x: box.x,
    y: box.y - 0.1,
    w: box.w,
    h: 0.02,
    fill: { color: COLOR.rule },
    line: { color: COLOR.rule, width: 0 },
  });
  slide.addText(runs, base({ ...box }));
}

function nextStepText(step: NextStep | undefined): string {
  if (!step) return 'Not yet planned: no open task or plan step names this conflict.';
  // A task's owner is a person; a plan step's proposer may be the vault's agent, which is no owner to show a client.
  const who = [
    step.kind === 'task' ? slideText(step.owner) : '',
    step.dueDate ? `due ${shortDate(step.dueDate)}` : '',
    step.kind === 'plan step' && step.status !== 'planned' ? step.status.replace('-', ' ') : '',
  ]
    .filter(Boolean)
    .join(', ');
  const name =
    step.kind === 'task'
      ? `Task ${slideText(step.identifier)}: ${slideText(step.title)}`
      : `Plan step: ${slideText(step.title)}`;
  return `${name}${who ? ` (${who})` : ''}.`;
}

function claimPanel(
  slide: Slide,
  claim: FeaturedQuote,
  box: { x: number; y: number; w: number; h: number },
  color: string,
): void {
  slide.addShape('rect', { ...box, fill: { color: COLOR.panelFill }, line: { color: COLOR.rule, width: 0.75 } });
  slide.addShape('rect', { x: box.x, y: box.y, w: box.w, h: 0.08, fill: { color }, line: { color, width: 0 } });
  const w = box.w - 2 * PANEL_PAD;
  const quoteH = box.h - 2 * PANEL_PAD - PANEL_ATTRIBUTION_H - 0.25;
  slide.addText(
    fit(quoteText(claim.quote), { w, h: quoteH, size: SIZE.claim }),
    base({ x: box.x + PANEL_PAD, y: box.y + PANEL_PAD + 0.05, w, h: quoteH, fontSize: SIZE.claim, color: COLOR.ink }),
  );
  slide.addText(
    attribution(claim, w, SIZE.body),
    base({
      x: box.x + PANEL_PAD,
      y: box.y + box.h - PANEL_PAD - PANEL_ATTRIBUTION_H,
      w,
      h: PANEL_ATTRIBUTION_H,
      fontSize: SIZE.body,
      color: COLOR.muted,
      valign: 'bottom',
    }),
  );
}

function notes(conflict: DeckConflict): string {
  const left = conflict.claimCount - conflict.claims.length;
  const step = conflict.nextStep;
  return [
    `Open conflict ${slideText(conflict.id)} about ${slideText(conflict.about)} (entity ${slideText(conflict.entityId)}); kind: ${conflict.kind.kind}.`,
    ...conflict.claims.map((cl, i) => `Claim ${i + 1}: ${evidenceLine(cl)}.`),
    ...(left > 0
      ? [
          `And ${plural(left, 'more claim')}: get_entity {"entityId": "${slideText(conflict.entityId)}"} lists the conflict's claims.`,
        ]
      : []),
    step
      ? `Next step: ${step.kind} ${slideText(step.identifier ?? step.title)}.`
      : 'No open task or plan step names it.',
    `Resolve it with resolve_conflict {"conflictId": "${slideText(conflict.id)}", "status": "resolved", "note": "…"} once validated.`,
  ].join('\n');
}
