/**
 * Writes one synthetic vault straight into a store, with the same statements as src/load/load.ts
 * (vault, people, meetings and turns, retrieval chunks and their word index through
 * src/search/chunk-index.ts, entities with names, evidence, mentions and edges, conflicts, tasks, calendar,
 * files, briefs, mail, agent memory), in a few large transactions. Mentions are generated consistently
 * (evidence quotes are cut from the turns they cite) instead of being counted from the text: the loader's
 * counting is quadratic in entities × meetings and made for fixture-sized vaults.
 */
import { json, type Db } from '../../src/store/db.js';
import { normalize } from '../../src/store/text.js';
import { indexMeetingChunks, RETRIEVAL_CHUNK } from '../../src/search/chunk-index.js';
import { ENTITY_SOURCES, ENTITY_TYPES, TASK_STATUSES } from '../../src/core/vocabulary.js';
import { DAY_MS } from '../../src/time.js';
import type { Prng, TextMaker } from './synth.js';

export interface VaultSize {
  entities: number;
  meetings: number;
  chunks: number;
}

export interface WrittenVault {
  id: string;
  name: string;
  entities: number;
  meetings: number;
  chunks: number;
}

const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const FIRST = [
  'Ana',
  'Tom',
  'Fiona',
  'Daniel',
  'Priya',
  'Owen',
  'Sunita',
  'Marcus',
  'Nicola',
  'Gavin',
  'Lena',
  'Rafael',
  'Chloe',
  'Ibrahim',
  'Mei',
];
const LAST = [
  'Ruiz',
  'Becker',
  'Gallagher',
  'Kim',
  'Shah',
  'Price',
  'Chauhan',
  'Webb',
  'Mercer',
  'Shaw',
  'Novak',
  'Costa',
  'Dubois',
  'Haddad',
  'Lin',
];
const RELATIONS = ['depends_on', 'owns', 'causes', 'affects', 'measures', 'part_of', 'uses'];
const SOURCE_WEIGHTS = [0.8, 0.1, 0.05, 0.05];

interface MeetingInfo {
  id: string;
  startMs: number;
  extracted: boolean;
  turns: { speaker: string; text: string; at: number }[];
}

export function writeVault(
  db: Db,
  v: number,
  size: VaultSize,
  anchorMs: number,
  rnd: Prng,
  text: TextMaker,
): WrittenVault {
  const vid = `scale-${String(v).padStart(2, '0')}`;
  const name = `Scale Vault ${String(v).padStart(2, '0')}`;
  const domain = `${vid}.example`;
  const prefix = `SV${String.fromCharCode(65 + (Math.floor(v / 26) % 26))}${String.fromCharCode(65 + (v % 26))}`;
  const people = Array.from({ length: 30 }, (_, i) => {
    const n = `${FIRST[i % FIRST.length]} ${LAST[(i + 3 * Math.floor(i / FIRST.length) + v) % LAST.length]}`; // 30 distinct names
    return { id: `p${i}`, name: n, email: `${n.toLowerCase().replace(/ /g, '.')}@${domain}` };
  });

  db.transaction(() => {
    db.prepare(
      `INSERT INTO vaults (id, name, client, description, keywords_json, summary, board_prefix, agent_email, origin, origin_hash, loaded_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'import', NULL, ?)`,
    ).run(
      vid,
      name,
      `${text.title(2)} Ltd`,
      text.prose(200),
      json.write([text.word(), text.word(), text.word()]),
      text.prose(300),
      prefix,
      `agent@${domain}`,
      iso(anchorMs),
    );
    const person = db.prepare(
      'INSERT INTO people (vault_id, id, name, email, title, organisation) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const p of people) person.run(vid, p.id, p.name, p.email, text.title(2), text.title(1));
  })();

  const meetings = writeMeetings(
    db,
    vid,
    size,
    anchorMs,
    rnd,
    text,
    people.map((p) => p.name),
  );
  const chunks = meetings.reduce((n, m) => n + m.chunks, 0);
  db.transaction(() =>
    writeEntities(
      db,
      vid,
      size.entities,
      meetings.map((m) => m.info).filter((m) => m.extracted),
      anchorMs,
      rnd,
      text,
    ),
  )();
  db.transaction(() => writeWorkspace(db, vid, prefix, size.entities, anchorMs, rnd, text, people))();
  return { id: vid, name, entities: size.entities, meetings: size.meetings, chunks };
}

/** Meetings spread over the year before the anchor, each with turns that pack into exactly its share of chunks. */
function writeMeetings(
  db: Db,
  vid: string,
  size: VaultSize,
  anchorMs: number,
  rnd: Prng,
  text: TextMaker,
  names: string[],
) {
  const meeting = db.prepare(
    `INSERT INTO meetings (vault_id, id, name, started_at, duration_minutes, attendees_json, extraction_status, notes_md, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const turn = db.prepare(
    'INSERT INTO transcript_turns (vault_id, meeting_id, turn_index, speaker, text, at_seconds) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const out: { info: MeetingInfo; chunks: number }[] = [];
  const span = 365 * DAY_MS;
  const BATCH = 25; // meetings per transaction
  for (let start = 0; start < size.meetings; start += BATCH) {
    db.transaction(() => {
      for (let j = start; j < Math.min(size.meetings, start + BATCH); j++) {
        const id = `m${String(j).padStart(5, '0')}`;
        const startMs = Math.floor((anchorMs - span + ((j + 0.5) * span) / size.meetings) / 60_000) * 60_000;
        const attendees = Array.from({ length: 3 + rnd.int(3) }, () => rnd.pick(names)).filter(
          (n, i, a) => a.indexOf(n) === i,
        );
        const status = rnd.next() < 0.92 ? 'extracted' : rnd.pick(['processing', 'pending', 'failed']);
        const want = Math.floor(size.chunks / size.meetings) + (j < size.chunks % size.meetings ? 1 : 0);
        const turns = packedTurns(want, attendees, rnd, text);
        const minutes = Math.max(15, Math.ceil((turns.at(-1)?.at ?? 0) / 60));
        meeting.run(
          vid,
          id,
          `${text.title(2)} review ${j + 1}`,
          iso(startMs),
          minutes,
          json.write(attendees),
          status,
          `## Summary\n${text.prose(400)}`,
          iso(startMs + minutes * 60_000),
        );
        turns.forEach((t, i) => turn.run(vid, id, i, t.speaker, t.text, t.at));
        const chunks = indexMeetingChunks(db, vid, id);
        out.push({ info: { id, startMs, extracted: status === 'extracted', turns }, chunks });
      }
    })();
  }
  return out;
}

/** Turns that the chunker (same target as the store's) packs into exactly `chunks` chunks. */
function packedTurns(chunks: number, speakers: string[], rnd: Prng, text: TextMaker) {
  const turns: { speaker: string; text: string; at: number }[] = [];
  let size = 0;
  let started = 0;
  let at = 0;
  for (;;) {
    const speaker = rnd.pick(speakers);
    const said = text.prose(120 + rnd.int(360));
    const line = speaker.length + 2 + said.length;
    if (size === 0 || size + line + 1 > RETRIEVAL_CHUNK.target) {
      if (started === chunks) return turns;
      started++;
      size = 0;
    }
    size += line + 1;
    turns.push({ speaker, text: said, at });
    at += Math.ceil(said.length / 15);
  }
}

function writeEntities(
  db: Db,
  vid: string,
  count: number,
  meetings: MeetingInfo[],
  anchorMs: number,
  rnd: Prng,
  text: TextMaker,
) {
  const entity = db.prepare(
    `INSERT INTO entities (vault_id, id, type, name, aliases_json, description, source, mention_count, first_seen_at, last_mentioned_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const entityName = db.prepare(
    'INSERT INTO entity_names (vault_id, entity_id, name, norm, is_alias) VALUES (?, ?, ?, ?, ?)',
  );
  const evidence = db.prepare(
    'INSERT INTO evidence (vault_id, id, entity_id, meeting_id, turn_index, speaker, quote, spoken_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const mention = db.prepare(
    'INSERT INTO entity_mentions (vault_id, entity_id, meeting_id, count) VALUES (?, ?, ?, 1) ON CONFLICT DO UPDATE SET count = count + 1',
  );
  const names: string[] = [];
  let quotes = 0;
  for (let i = 0; i < count; i++) {
    const id = `e${String(i).padStart(6, '0')}`;
    const name = text.title(2 + rnd.int(2));
    names.push(name);
    const aliases =
      rnd.next() < 0.3
        ? [
            name
              .split(' ')
              .map((w) => w[0])
              .join('')
              .toUpperCase() + String(i % 100),
          ]
        : [];
    const cites = Array.from({ length: meetings.length ? 1 + rnd.int(3) : 0 }, () => {
      const m = rnd.pick(meetings);
      const turnIndex = rnd.int(m.turns.length);
      const t = m.turns[turnIndex]!;
      const from = rnd.int(Math.max(1, t.text.length - 90));
      return {
        m,
        turnIndex,
        speaker: t.speaker,
        quote: t.text.slice(from, from + 90).trim(),
        at: iso(m.startMs + t.at * 1000),
      };
    });
    const spoken = cites.map((c) => c.at).sort();
    const fallback = iso(anchorMs - rnd.int(365) * DAY_MS);
    const source = ENTITY_SOURCES[weighted(rnd.next())]!;
    entity.run(
      vid,
      id,
      ENTITY_TYPES[i % ENTITY_TYPES.length],
      name,
      json.write(aliases),
      text.prose(120 + rnd.int(200)),
      source,
      cites.length + rnd.skewed(80),
      spoken[0] ?? fallback,
      spoken.at(-1) ?? fallback,
    );
    for (const c of cites) {
      evidence.run(vid, `q${++quotes}`, id, c.m.id, c.turnIndex, c.speaker, c.quote, c.at);
      mention.run(vid, id, c.m.id);
    }
    entityName.run(vid, id, name, normalize(name), 0);
    for (const a of aliases) entityName.run(vid, id, a, normalize(a), 1);
  }
  const edge = db.prepare(
    'INSERT INTO edges (vault_id, source_id, target_id, relation, weight) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const eid = (i: number) => `e${String(i).padStart(6, '0')}`;
  for (let i = 0; i < count; i++) {
    for (let k = 1 + rnd.int(4); k > 0; k--) {
      const j = rnd.skewed(count);
      if (j !== i) edge.run(vid, eid(i), eid(j), rnd.pick(RELATIONS), 1 + rnd.int(6));
    }
  }
  writeConflicts(db, vid, Math.max(1, Math.floor(count / 100)), count, names, meetings, anchorMs, rnd);
}

function weighted(r: number): number {
  let acc = 0;
  for (let i = 0; i < SOURCE_WEIGHTS.length; i++) if (r < (acc += SOURCE_WEIGHTS[i]!)) return i;
  return 0;
}

function writeConflicts(
  db: Db,
  vid: string,
  n: number,
  entities: number,
  names: string[],
  meetings: MeetingInfo[],
  anchorMs: number,
  rnd: Prng,
) {
  if (!meetings.length || !entities) return;
  const conflict = db.prepare(
    'INSERT INTO conflicts (vault_id, id, entity_id, title, status, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const claim = db.prepare(
    'INSERT INTO conflict_claims (vault_id, conflict_id, position, meeting_id, turn_index, speaker, quote, spoken_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const history = db.prepare(
    'INSERT INTO conflict_history (vault_id, conflict_id, at, from_status, to_status, note, actor) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  for (let c = 0; c < n; c++) {
    const e = rnd.int(entities);
    const status = rnd.next() < 0.6 ? 'open' : rnd.next() < 0.6 ? 'resolved' : 'dismissed';
    const created = anchorMs - (30 + rnd.int(300)) * DAY_MS;
    const updated = created + rnd.int(20) * DAY_MS;
    const id = `c${c}`;
    conflict.run(
      vid,
      id,
      `e${String(e).padStart(6, '0')}`,
      `${names[e]}: two accounts disagree`,
      status,
      status === 'open' ? null : 'validated',
      iso(created),
      iso(updated),
    );
    for (let p = 0; p < 2; p++) {
      const m = rnd.pick(meetings);
      const ti = rnd.int(m.turns.length);
      const t = m.turns[ti]!;
      claim.run(vid, id, p, m.id, ti, t.speaker, t.text.slice(0, 80), iso(m.startMs + t.at * 1000));
    }
    history.run(vid, id, iso(created), null, 'open', null, 'extraction');
    if (status !== 'open') history.run(vid, id, iso(updated), 'open', status, 'validated', 'fixture');
  }
}

/** The small families (tasks, plan, calendar, files, briefs, mail, agent memory), so every tool has data. */
function writeWorkspace(
  db: Db,
  vid: string,
  prefix: string,
  entities: number,
  anchorMs: number,
  rnd: Prng,
  text: TextMaker,
  people: { name: string; email: string }[],
) {
  const day = (offset: number) => iso(anchorMs + offset * DAY_MS).slice(0, 10);
  const milestone = db.prepare(
    'INSERT INTO milestones (vault_id, id, title, description, target_date) VALUES (?, ?, ?, ?, ?)',
  );
  for (let i = 0; i < 4; i++) milestone.run(vid, `ms${i}`, text.title(3), text.prose(80), day(-120 + i * 60));
  const task = db.prepare(
    `INSERT INTO tasks (vault_id, id, number, identifier, title, description, status, assignee_name, estimate, priority,
       labels_json, checklist_json, due_date, milestone_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const tasks = Math.min(300, Math.max(20, Math.floor(entities / 50)));
  for (let n = 1; n <= tasks; n++) {
    const created = anchorMs - rnd.int(300) * DAY_MS;
    task.run(
      vid,
      `${prefix}-${n}`,
      n,
      `${prefix}-${n}`,
      text.title(4),
      text.prose(150),
      rnd.pick(TASK_STATUSES),
      rnd.pick(people).name,
      rnd.pick(['xs', 's', 'm', 'l']),
      rnd.pick(['none', 'low', 'medium', 'high']),
      json.write([text.word()]),
      '[]',
      day(-200 + rnd.int(260)),
      `ms${rnd.int(4)}`,
      iso(created),
      iso(created + DAY_MS),
    );
  }
  const step = db.prepare(
    `INSERT INTO plan_steps (vault_id, id, position, title, description, status, proposed_by, proposer_name, start_date, due_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (let i = 0; i < 8; i++)
    step.run(
      vid,
      `step${i}`,
      i + 1,
      text.title(4),
      text.prose(100),
      rnd.pick(['planned', 'in-progress', 'done']),
      'agent',
      null,
      day(-200 + i * 30),
      day(-170 + i * 30),
    );
  const event = db.prepare(
    `INSERT INTO calendar_events (vault_id, id, title, start_at, end_at, attendees_json, video_link, description, meeting_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (let i = 0; i < 40; i++) {
    const at = anchorMs + (i - 20) * DAY_MS + 9 * 3_600_000;
    event.run(
      vid,
      `ev${i}`,
      text.title(3),
      iso(at),
      iso(at + 3_600_000),
      json.write([rnd.pick(people).email, rnd.pick(people).email]),
      `https://meet.example/${vid}-${i}`,
      null,
      null,
      iso(at - 7 * DAY_MS),
    );
  }
  const file = db.prepare(
    `INSERT INTO files (vault_id, id, name, description, visibility, mime_type, size_bytes, content_text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (let i = 0; i < 10; i++) {
    const content = text.prose(2000);
    file.run(
      vid,
      `f${i}`,
      `${text.title(2)}.pdf`,
      text.prose(80),
      i < 6 ? 'public' : 'internal',
      'application/pdf',
      Buffer.byteLength(content),
      content,
      iso(anchorMs - i * 9 * DAY_MS),
    );
  }
  const brief = db.prepare(
    'INSERT INTO briefs (vault_id, id, kind, title, body_md, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const kind of ['daily', 'weekly-plan', 'weekly-digest']) {
    for (let i = 0; i < 3; i++)
      brief.run(vid, `${kind}-${i}`, kind, text.title(3), text.prose(1500), iso(anchorMs - (i * 7 + 1) * DAY_MS));
  }
  const thread = db.prepare('INSERT INTO mail_threads (vault_id, id, subject) VALUES (?, ?, ?)');
  const message = db.prepare(
    `INSERT INTO mail_messages (vault_id, id, thread_id, from_addr, from_name, to_json, cc_json, subject, body, attachments_json, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (let t = 0; t < 10; t++) {
    const subject = text.title(4);
    thread.run(vid, `t${t}`, subject);
    for (let i = 0; i < 3; i++) {
      const from = rnd.pick(people);
      message.run(
        vid,
        `<t${t}.${i}@${vid}.example>`,
        `t${t}`,
        from.email,
        from.name,
        json.write([rnd.pick(people).email]),
        '[]',
        subject,
        text.prose(500),
        '[]',
        iso(anchorMs - (t * 5 + i) * DAY_MS),
      );
    }
  }
  const conversation = db.prepare(
    'INSERT INTO agent_conversations (vault_id, id, channel, person_name, person_email, title, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const said = db.prepare(
    'INSERT INTO agent_messages (vault_id, conversation_id, position, role, text, at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (let c = 0; c < 5; c++) {
    const p = rnd.pick(people);
    const at = anchorMs - c * 11 * DAY_MS;
    conversation.run(vid, `conv${c}`, 'email', p.name, p.email, text.title(3), iso(at));
    for (let i = 0; i < 4; i++)
      said.run(vid, `conv${c}`, i, i % 2 ? 'agent' : 'user', text.prose(300), iso(at + i * 600_000));
  }
}
