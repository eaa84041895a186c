/**
 * The next steps: open tasks grouped by milestone (target date order) on the left, the plan steps ahead on the
 * right. Every line is shown whole (wrapped, never cut mid-phrase): what does not fit is counted in a closing
 * line ("… and 8 more open tasks, listed in the speaker notes"), and the notes list every task read with its
 * owner and due date, and the tool calls that list the rest.
 */
import type { DeckContent, NextTask } from './content.js';
import { fit, slideText, wrapLines } from './fit.js';
import { base, plural, titled, type Pres, type Slide, type TextRun } from './kit.js';
import { COLOR, GRID_IN, SIZE } from './look.js';
import { shortDate } from '../../time.js';

interface ListLine {
  text: string;
  size: number;
  bold?: boolean;
  color?: string;
  /** Indent in inches (a task under its milestone). */
  indent?: number;
  /** Space above, in points. */
  before?: number;
  /** Counted in "and N more" when left out (a task or a step, not a heading). */
  item?: boolean;
}

/** An item longer than this many lines (a title of a paragraph) is shortened at a word; any other is shown whole. */
const ITEM_LINES = 3;
const LINE_HEIGHT = 1.2;

/**
 * A column of lines as one text box: lines are added while they fit whole; when the next would not, `more(n)`
 * says how many items were left out (n counts those not shown plus `unread`, the items never read).
 */
function listBox(
  slide: Slide,
  lines: ListLine[],
  box: { x: number; y: number; w: number; h: number },
  unread: number,
  more: (left: number) => string,
): void {
  const runs: TextRun[] = [];
  const room = box.h * 72;
  const moreRoom = SIZE.small * LINE_HEIGHT * 2 + 6;
  let used = 0;
  let i = 0;
  for (; i < lines.length; i++) {
    const l = lines[i]!;
    const w = box.w - (l.indent ?? 0);
    const text = fit(l.text, { w, h: 100, size: l.size, bold: l.bold, maxLines: ITEM_LINES });
    const height = wrapLines(text, { w, size: l.size, bold: l.bold }).length * l.size * LINE_HEIGHT + (l.before ?? 0);
    const rest = lines.length - i - 1 + unread;
    // A heading is never left last in the box without its first item.
    const next = lines[i + 1];
    const keepWith = !l.item && next?.item ? next.size * LINE_HEIGHT : 0;
    if (used + height + keepWith > room - (rest > 0 ? moreRoom : 0)) break;
    used += height;
    runs.push({
      text,
      options: {
        fontSize: l.size,
        bold: l.bold,
        color: l.color ?? COLOR.text,
        indentLevel: l.indent ? 1 : 0,
        paraSpaceBefore: l.before ?? 0,
        breakLine: true,
      },
    });
  }
  const left = lines.slice(i).filter((l) => l.item).length + unread;
  if (left > 0)
    runs.push({
      text: more(left),
      options: { fontSize: SIZE.small, italic: true, color: COLOR.muted, paraSpaceBefore: 8, breakLine: true },
    });
  slide.addText(runs, base({ ...box, lineSpacingMultiple: 1.0 }));
}

const taskText = (t: NextTask) => {
  const who = [slideText(t.owner), t.dueDate ? `due ${shortDate(t.dueDate)}` : ''].filter(Boolean).join(', ');
  return `${slideText(t.identifier)}  ${slideText(t.title)}${who ? ` (${who})` : ''}`;
};

export function nextStepsSlide(pres: Pres, c: DeckContent): void {
  const slide = titled(pres, 'Next steps');
  const ns = c.nextSteps;
  const colW = (GRID_IN.w - GRID_IN.gap * 2) / 2;
  const h = GRID_IN.bottom - GRID_IN.top;
  const heading = (text: string): ListLine => ({ text, size: SIZE.heading, bold: true, color: COLOR.ink });
  const left: ListLine[] = [heading(`Open tasks by milestone (${ns.openTasks.toLocaleString('en-GB')})`)];
  for (const g of ns.groups) {
    left.push({
      text:
        g.milestone === null
          ? 'Without a milestone'
          : `${slideText(g.milestone)}${g.targetDate ? `, by ${shortDate(g.targetDate)}` : ''}`,
      size: SIZE.body,
      bold: true,
      color: COLOR.ink,
      before: 8,
    });
    left.push(...g.tasks.map((t): ListLine => ({ text: taskText(t), size: SIZE.small, indent: 0.3, item: true })));
  }
  if (ns.openTasks === 0) left.push({ text: 'No open tasks on the board.', size: SIZE.body, before: 8 });
  const tasksRead = ns.groups.reduce((a, g) => a + g.tasks.length, 0);
  listBox(
    slide,
    left,
    { x: GRID_IN.x, y: GRID_IN.top, w: colW, h },
    ns.openTasks - tasksRead,
    (n) => `… and ${plural(n, 'more open task')}, listed in the speaker notes.`,
  );
  const right: ListLine[] = [heading(`Plan steps ahead (${ns.planStepsAhead.toLocaleString('en-GB')})`)];
  for (const s of ns.planSteps) {
    right.push({
      text: `${slideText(s.title)}${s.dueDate ? `, due ${shortDate(s.dueDate)}` : ''}${s.status !== 'planned' ? ` (${slideText(s.status).replace('-', ' ')})` : ''}`,
      size: SIZE.body,
      before: 6,
      item: true,
    });
  }
  if (!ns.planSteps.length) right.push({ text: 'No plan steps ahead.', size: SIZE.body, before: 8 });
  listBox(
    slide,
    right,
    { x: GRID_IN.x + colW + GRID_IN.gap * 2, y: GRID_IN.top, w: colW, h },
    ns.planStepsAhead - ns.planSteps.length,
    (n) => `… and ${plural(n, 'more plan step')} ahead, listed in the speaker notes.`,
  );
  slide.addNotes(notes(c));
}

function notes(c: DeckContent): string {
  const ns = c.nextSteps;
  const read = ns.groups.reduce((a, g) => a + g.tasks.length, 0);
  return [
    ...ns.groups.flatMap((g) => [
      `${g.milestone === null ? 'Without a milestone' : slideText(g.milestone)}:`,
      ...g.tasks.map((t) => `- ${taskText(t)}`),
    ]),
    ...(ns.openTasks > read
      ? [`And ${plural(ns.openTasks - read, 'more open task')}: list_tasks {"status": "open"} lists them all.`]
      : []),
    'Plan steps ahead:',
    ...ns.planSteps.map(
      (s) => `- ${slideText(s.title)} (${slideText(s.status)}${s.dueDate ? `, due ${s.dueDate}` : ''})`,
    ),
    ...(ns.planStepsAhead > ns.planSteps.length
      ? [`And ${plural(ns.planStepsAhead - ns.planSteps.length, 'more plan step')}: list_plan_steps lists them all.`]
      : []),
    'Sources: list_tasks {"status": "open"}, list_milestones, list_plan_steps.',
  ].join('\n');
}
