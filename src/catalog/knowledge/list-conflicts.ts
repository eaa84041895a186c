import { z } from 'zod';
import { defineTool } from '../define.js';
import { conflict } from '../shapes.js';
import { listConflicts } from '../../store/conflicts.js';
import { withLaterMeetings } from '../knowledge-lag.js';
import { withClaimContext } from '../evidence-context.js';

export default defineTool({
  name: 'list_conflicts',
  view: 'conflicts',
  title: 'List conflicts',
  description:
    'Contradictions found in the evidence: pairs of claims about one entity that cannot both be true, each with the speaker, verbatim quote, meeting, turn and `context` (the whole sentences the quote was clipped from). `status`: open (default), resolved, dismissed or all. The ids feed resolve_conflict. `laterMeetingsNotExtracted` names newer meetings not extracted yet: the status may predate them, so search their transcripts.',
  input: { status: z.enum(['open', 'resolved', 'dismissed', 'all']).default('open') },
  output: z.object({ conflicts: z.array(conflict) }),
  run: ({ status }, { db, vault }) => ({
    conflicts: withLaterMeetings(db, vault.id, withClaimContext(db, vault.id, listConflicts(db, vault.id, { status }))),
  }),
});
