/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many have run. Append only:
 * a released migration is never edited, a change is a new entry.
 *
 * Every vault-scoped table is keyed by (vault_id, id) and cascades from `vaults`, so ids coming from the
 * hosted service or from fixtures never collide across vaults and dropping a vault drops all of it.
 * JSON columns (`*_json`) hold small arrays that are always read whole.
 * A step is SQL, or a function where the new values are computed in JavaScript (e.g. hashes). What a step computes
 * is copied beside it and frozen (migration-8-content-hash.ts), never imported from code that keeps changing.
 */
import { contentHashV8 } from './migration-8-content-hash.js';
import type Database from 'better-sqlite3';

export const migrations: (string | ((db: Database.Database) => void))[] = [
  /* 1: every record family of the spec and the catalog */ `
CREATE TABLE vaults (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  client TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '',
  keywords_json TEXT NOT NULL DEFAULT '[]',
  summary TEXT NOT NULL DEFAULT '',
  board_prefix TEXT NOT NULL DEFAULT 'TASK',
  agent_email TEXT,
  origin TEXT NOT NULL,             -- fixture | import | sync
  origin_hash TEXT,                 -- content hash of what was loaded (fixtures: plus the day shift)
  loaded_at TEXT NOT NULL
);

CREATE TABLE people (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  title TEXT NOT NULL DEFAULT '',
  organisation TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (vault_id, id)
);
CREATE INDEX people_email ON people(vault_id, email COLLATE NOCASE);

CREATE TABLE entities (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  name TEXT NOT NULL,
  aliases_json TEXT NOT NULL DEFAULT '[]',
  description TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL,
  mention_count INTEGER NOT NULL DEFAULT 0,
  first_seen_at TEXT NOT NULL,
  last_mentioned_at TEXT,
  PRIMARY KEY (vault_id, id)
);
CREATE INDEX entities_mentions ON entities(vault_id, mention_count DESC, id);
CREATE INDEX entities_recent ON entities(vault_id, last_mentioned_at DESC, id);
CREATE INDEX entities_first_seen ON entities(vault_id, first_seen_at);
CREATE INDEX entities_type ON entities(vault_id, type);

-- Names and aliases, normalized (lower case, no accents), for search_knowledge.
CREATE TABLE entity_names (
  vault_id TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  name TEXT NOT NULL,
  norm TEXT NOT NULL,
  is_alias INTEGER NOT NULL,
  FOREIGN KEY (vault_id, entity_id) REFERENCES entities(vault_id, id) ON DELETE CASCADE
);
CREATE INDEX entity_names_norm ON entity_names(vault_id, norm);
CREATE INDEX entity_names_entity ON entity_names(vault_id, entity_id);

-- Deduplicated: one row per (source, target, relation); weight = co-mentions across meetings.
CREATE TABLE edges (
  vault_id TEXT NOT NULL,
  source_id TEXT NOT NULL,
  target_id TEXT NOT NULL,
  relation TEXT NOT NULL,
  weight INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (vault_id, source_id, target_id, relation),
  FOREIGN KEY (vault_id, source_id) REFERENCES entities(vault_id, id) ON DELETE CASCADE,
  FOREIGN KEY (vault_id, target_id) REFERENCES entities(vault_id, id) ON DELETE CASCADE
);
CREATE INDEX edges_target ON edges(vault_id, target_id);

CREATE TABLE meetings (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  started_at TEXT NOT NULL,
  duration_minutes INTEGER,
  attendees_json TEXT NOT NULL DEFAULT '[]',
  extraction_status TEXT NOT NULL,
  notes_md TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  PRIMARY KEY (vault_id, id)
);
CREATE INDEX meetings_started ON meetings(vault_id, started_at DESC);
CREATE INDEX meetings_created ON meetings(vault_id, created_at);
CREATE INDEX meetings_status ON meetings(vault_id, extraction_status);

CREATE TABLE transcript_turns (
  vault_id TEXT NOT NULL,
  meeting_id TEXT NOT NULL,
  turn_index INTEGER NOT NULL,
  speaker TEXT NOT NULL,
  text TEXT NOT NULL,
  at_seconds INTEGER,
  PRIMARY KEY (vault_id, meeting_id, turn_index),
  FOREIGN KEY (vault_id, meeting_id) REFERENCES meetings(vault_id, id) ON DELETE CASCADE
);

-- Mentions of an entity in one meeting (what get_meeting and list_findings' meetingId filter read).
CREATE TABLE entity_mentions (
  vault_id TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  meeting_id TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (vault_id, meeting_id, entity_id),
  FOREIGN KEY (vault_id, entity_id) REFERENCES entities(vault_id, id) ON DELETE CASCADE,
  FOREIGN KEY (vault_id, meeting_id) REFERENCES meetings(vault_id, id) ON DELETE CASCADE
);

CREATE TABLE evidence (
  vault_id TEXT NOT NULL,
  id TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  meeting_id TEXT NOT NULL,
  turn_index INTEGER,
  speaker TEXT NOT NULL,
  quote TEXT NOT NULL,
  spoken_at TEXT NOT NULL,
  PRIMARY KEY (vault_id, id),
  FOREIGN KEY (vault_id, entity_id) REFERENCES entities(vault_id, id) ON DELETE CASCADE,
  FOREIGN KEY (vault_id, meeting_id) REFERENCES meetings(vault_id, id) ON DELETE CASCADE
);
CREATE INDEX evidence_entity ON evidence(vault_id, entity_id, spoken_at);
CREATE INDEX evidence_meeting ON evidence(vault_id, meeting_id, entity_id);

CREATE TABLE conflicts (
  vault_id TEXT NOT NULL,
  id TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  title TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'resolved', 'dismissed')),
  note TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (vault_id, id),
  FOREIGN KEY (vault_id, entity_id) REFERENCES entities(vault_id, id) ON DELETE CASCADE
);
CREATE INDEX conflicts_status ON conflicts(vault_id, status, updated_at DESC);
CREATE INDEX conflicts_entity ON conflicts(vault_id, entity_id);

CREATE TABLE conflict_claims (
  vault_id TEXT NOT NULL,
  conflict_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  meeting_id TEXT,
  turn_index INTEGER,
  speaker TEXT NOT NULL,
  quote TEXT NOT NULL,
  spoken_at TEXT,
  PRIMARY KEY (vault_id, conflict_id, position),
  FOREIGN KEY (vault_id, conflict_id) REFERENCES conflicts(vault_id, id) ON DELETE CASCADE
);

CREATE TABLE conflict_history (
  vault_id TEXT NOT NULL,
  conflict_id TEXT NOT NULL,
  at TEXT NOT NULL,
  from_status TEXT,
  to_status TEXT NOT NULL,
  note TEXT,
  actor TEXT,
  FOREIGN KEY (vault_id, conflict_id) REFERENCES conflicts(vault_id, id) ON DELETE CASCADE
);
CREATE INDEX conflict_history_conflict ON conflict_history(vault_id, conflict_id, at);

CREATE TABLE calendar_events (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  title TEXT NOT NULL,
  start_at TEXT NOT NULL,           -- UTC ISO, so text order is time order
  end_at TEXT NOT NULL,
  attendees_json TEXT NOT NULL DEFAULT '[]',
  video_link TEXT,
  description TEXT,
  meeting_id TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (vault_id, id)
);
CREATE INDEX calendar_start ON calendar_events(vault_id, start_at);

CREATE TABLE milestones (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  target_date TEXT,
  PRIMARY KEY (vault_id, id)
);

CREATE TABLE tasks (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  number INTEGER NOT NULL,
  identifier TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  status TEXT NOT NULL CHECK (status IN ('todo', 'doing', 'done', 'blocked')),
  assignee_name TEXT,
  estimate TEXT,
  priority TEXT NOT NULL DEFAULT 'none',
  labels_json TEXT NOT NULL DEFAULT '[]',
  checklist_json TEXT NOT NULL DEFAULT '[]',
  due_date TEXT,
  milestone_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (vault_id, id),
  UNIQUE (vault_id, number)
);
CREATE INDEX tasks_status ON tasks(vault_id, status);
CREATE INDEX tasks_milestone ON tasks(vault_id, milestone_id);

CREATE TABLE plan_steps (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  position INTEGER NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  status TEXT NOT NULL,
  proposed_by TEXT NOT NULL CHECK (proposed_by IN ('agent', 'person')),
  proposer_name TEXT,
  start_date TEXT,
  due_date TEXT,
  PRIMARY KEY (vault_id, id)
);

-- Internal files are stored (sync brings them) but no tool ever serves them.
CREATE TABLE files (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  visibility TEXT NOT NULL CHECK (visibility IN ('public', 'internal')),
  mime_type TEXT,
  size_bytes INTEGER,
  content_text TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (vault_id, id)
);

CREATE TABLE briefs (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('daily', 'weekly-plan', 'weekly-digest')),
  title TEXT NOT NULL,
  body_md TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (vault_id, id)
);
CREATE INDEX briefs_kind ON briefs(vault_id, kind, created_at DESC);

CREATE TABLE sent_emails (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  thread_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  in_reply_to_message_id TEXT,
  to_json TEXT NOT NULL,
  cc_json TEXT NOT NULL DEFAULT '[]',
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  attachments_json TEXT NOT NULL DEFAULT '[]',
  sent_at TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'sent' CHECK (status IN ('sent', 'draft')),
  send_as TEXT NOT NULL DEFAULT 'agent',
  eml_path TEXT,                    -- relative to the data dir, for mail written locally
  PRIMARY KEY (vault_id, id)
);
CREATE INDEX sent_emails_sent ON sent_emails(vault_id, status, sent_at DESC);

-- The connected mailbox: every thread, including mail from before logging started and what the agent sent.
CREATE TABLE mail_threads (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  subject TEXT NOT NULL,
  PRIMARY KEY (vault_id, id)
);

CREATE TABLE mail_messages (
  vault_id TEXT NOT NULL,
  id TEXT NOT NULL,                 -- the Message-ID
  thread_id TEXT NOT NULL,
  from_addr TEXT NOT NULL,
  from_name TEXT,
  to_json TEXT NOT NULL,
  cc_json TEXT NOT NULL DEFAULT '[]',
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  attachments_json TEXT NOT NULL DEFAULT '[]',
  sent_at TEXT NOT NULL,
  PRIMARY KEY (vault_id, id),
  FOREIGN KEY (vault_id, thread_id) REFERENCES mail_threads(vault_id, id) ON DELETE CASCADE
);
CREATE INDEX mail_messages_thread ON mail_messages(vault_id, thread_id, sent_at);

CREATE TABLE agent_conversations (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  channel TEXT NOT NULL,
  person_name TEXT,
  person_email TEXT,
  title TEXT NOT NULL,
  started_at TEXT NOT NULL,
  PRIMARY KEY (vault_id, id)
);

CREATE TABLE agent_messages (
  vault_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  role TEXT NOT NULL,
  text TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (vault_id, conversation_id, position),
  FOREIGN KEY (vault_id, conversation_id) REFERENCES agent_conversations(vault_id, id) ON DELETE CASCADE
);

-- Word index over the agent's past messages (search_agent_memory); kept in step by triggers.
CREATE VIRTUAL TABLE agent_messages_fts USING fts5(
  text, content='agent_messages', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER agent_messages_ai AFTER INSERT ON agent_messages BEGIN
  INSERT INTO agent_messages_fts(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER agent_messages_ad AFTER DELETE ON agent_messages BEGIN
  INSERT INTO agent_messages_fts(agent_messages_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER agent_messages_au AFTER UPDATE ON agent_messages BEGIN
  INSERT INTO agent_messages_fts(agent_messages_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
  INSERT INTO agent_messages_fts(rowid, text) VALUES (new.rowid, new.text);
END;

CREATE TABLE artifacts (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('chart', 'workbook', 'csv', 'report')),
  title TEXT NOT NULL,
  file_name TEXT NOT NULL,
  mime_type TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  path TEXT,                        -- relative to the data dir; NULL when known only upstream
  remote_url TEXT,
  created_by TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (vault_id, id)
);
CREATE INDEX artifacts_created ON artifacts(vault_id, created_at DESC);

-- Personal keys: only a SHA-256 of the key is kept. A key reaches its granted vaults, or all of them.
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('member', 'manager')),
  all_vaults INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT,
  last_used_at TEXT
);
CREATE TABLE api_key_vaults (
  key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  vault_id TEXT NOT NULL,           -- no FK: a grant may name a vault that is synced later
  PRIMARY KEY (key_id, vault_id)
);

-- Every local write, in order, waiting for sync to push it upstream; and pull checkpoints.
CREATE TABLE outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  idempotency_id TEXT NOT NULL UNIQUE,  -- sent upstream so a retried push never applies twice
  vault_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  args_json TEXT NOT NULL,          -- the validated arguments, vault resolved to its id
  result_json TEXT,                 -- what the local write produced (ids upstream may map)
  key_id TEXT,
  key_name TEXT,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'pushed', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  created_at TEXT NOT NULL,
  pushed_at TEXT
);
CREATE INDEX outbox_pending ON outbox(status, seq);
CREATE TABLE sync_checkpoints (
  vault_id TEXT NOT NULL,
  resource TEXT NOT NULL,
  cursor TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (vault_id, resource)
);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
  /* 2: transcript search: retrieval chunks, their word index, and embedding bookkeeping */ `
CREATE TABLE transcript_chunks (
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- the rowid the word and vector indexes point at; never reused, so no stale vector attaches to a new chunk
  vault_id TEXT NOT NULL,
  meeting_id TEXT NOT NULL,
  chunk_index INTEGER NOT NULL,
  turn_start INTEGER NOT NULL,
  turn_end INTEGER NOT NULL,
  speakers_json TEXT NOT NULL,
  start_seconds INTEGER,
  text TEXT NOT NULL,
  content_hash TEXT NOT NULL,        -- sha256 of text: vectors are reused while it is unchanged
  vault_token TEXT NOT NULL,         -- a one-token vault tag, so the word index filters by vault itself
  UNIQUE (vault_id, meeting_id, chunk_index),
  FOREIGN KEY (vault_id, meeting_id) REFERENCES meetings(vault_id, id) ON DELETE CASCADE
);
CREATE INDEX transcript_chunks_meeting ON transcript_chunks(vault_id, meeting_id);

CREATE VIRTUAL TABLE transcript_chunks_fts USING fts5(
  text, vault_token, content='transcript_chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER transcript_chunks_ai AFTER INSERT ON transcript_chunks BEGIN
  INSERT INTO transcript_chunks_fts(rowid, text, vault_token) VALUES (new.id, new.text, new.vault_token);
END;
CREATE TRIGGER transcript_chunks_ad AFTER DELETE ON transcript_chunks BEGIN
  INSERT INTO transcript_chunks_fts(transcript_chunks_fts, rowid, text, vault_token) VALUES ('delete', old.id, old.text, old.vault_token);
  DELETE FROM chunk_embeddings WHERE chunk_id = old.id;
END;

-- Which chunks have a vector in the vector table, from which embedder and which text.
CREATE TABLE chunk_embeddings (
  chunk_id INTEGER PRIMARY KEY,
  embedder TEXT NOT NULL,
  content_hash TEXT NOT NULL
);

-- Vectors by text hash, kept across re-imports and re-syncs: unchanged text is never embedded twice.
CREATE TABLE embedding_cache (
  embedder TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (embedder, content_hash)
);
`,
  /* 3: sync with a remote service: per-vault state, records seen in a pull run, and local ids mapped to upstream ids */ `
-- One row per synced vault: what the last pull and push did. Checkpoints of a running pull stay in sync_checkpoints.
CREATE TABLE sync_state (
  vault_id TEXT PRIMARY KEY,
  remote_url TEXT NOT NULL,
  last_pull_started_at TEXT,        -- local clock, when the last complete pull began (the next changes_since moment)
  last_pull_at TEXT,
  last_push_at TEXT,
  last_error TEXT,
  pull_requests INTEGER NOT NULL DEFAULT 0
);

-- Records whose details (an entity's edges and evidence, a meeting's notes and transcript) have landed, with
-- the fingerprint of the list item they were fetched for: a killed pull resumes without fetching them again,
-- and a later pull fetches only records whose list item changed.
CREATE TABLE sync_records (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  resource TEXT NOT NULL,
  id TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  PRIMARY KEY (vault_id, resource, id)
) WITHOUT ROWID;

-- Fields of upstream records this version does not know, kept as raw JSON instead of being dropped.
CREATE TABLE sync_extra (
  vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  resource TEXT NOT NULL,
  id TEXT NOT NULL,
  extra_json TEXT NOT NULL,
  PRIMARY KEY (vault_id, resource, id)
) WITHOUT ROWID;

-- A record created locally (a task, an artifact) gets its upstream id when its outbox entry is pushed; later
-- entries that name the local id (update_task, send_email attachments) are rewritten with it.
CREATE TABLE sync_id_map (
  vault_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  local_id TEXT NOT NULL,
  remote_id TEXT NOT NULL,
  PRIMARY KEY (vault_id, kind, local_id)
) WITHOUT ROWID;
`,
  /* 4: transcript search at scale (docs/search.md). The shared word index of migration 2 is split into one FTS5
     table per vault (transcript_words_v…, built with its own triggers by src/search/word-index.ts from the stored
     chunks when the vault is first written or searched, or by serve's background pass); chunks are untouched.
     The vector table becomes sign bits (src/search/vectors.ts converts it from the embedding cache), and each
     embedded chunk's vector is kept by chunk id as float16 for re-scoring, deleted with its chunk. Search filters
     get an index that covers them. */ `
DROP TRIGGER IF EXISTS transcript_chunks_ai;
DROP TRIGGER IF EXISTS transcript_chunks_ad;
DROP TABLE IF EXISTS transcript_chunks_fts;
CREATE TABLE chunk_vector_floats (
  chunk_id INTEGER PRIMARY KEY,      -- a chunk with a row in chunk_embeddings
  vector BLOB NOT NULL               -- float16 (little-endian) × dims of the vector index's embedder
);
CREATE TRIGGER transcript_chunks_ad AFTER DELETE ON transcript_chunks BEGIN
  DELETE FROM chunk_embeddings WHERE chunk_id = old.id;
  DELETE FROM chunk_vector_floats WHERE chunk_id = old.id;
END;
-- Search filters (meeting, speaker) read this index instead of the chunk rows; it replaces (vault_id, meeting_id).
CREATE INDEX transcript_chunks_filters ON transcript_chunks(vault_id, meeting_id, speakers_json);
DROP INDEX IF EXISTS transcript_chunks_meeting;
`,
  /* 5: an entity's strongest edges without reading all of them (expand_graph on a graph with hubs, docs/performance.md):
     each direction gets an index in weight order that covers the edge, so the strongest few of a hub with 1,000
     edges are the first few index entries. The target one replaces edges_target (its prefix). */ `
CREATE INDEX edges_source_strength ON edges(vault_id, source_id, weight DESC, relation, target_id);
CREATE INDEX edges_target_strength ON edges(vault_id, target_id, weight DESC, relation, source_id);
DROP INDEX IF EXISTS edges_target;
`,
  /* 6: an entity mentioned in no meeting has no time of last mention. Vaults loaded from fixture files were given
     their first-seen time instead, which sorted them as the most recently mentioned (list_findings sort: recent).
     Synced vaults keep what upstream says. */ `
UPDATE entities SET last_mentioned_at = NULL
WHERE mention_count = 0 AND vault_id IN (SELECT id FROM vaults WHERE origin IN ('fixture', 'import'));
`,
  /* 7 (issue 18, search caches): what search reads is kept current by what changes it, not by every write.
     search_counts holds each vault's chunk count (embedder '') and its count of chunks with a current vector per
     embedder, kept by triggers (search_transcripts' vectorCoverage reads two rows instead of scanning the vault's
     chunks). entity_name_changes logs which entity's names (or type) changed, so a vault's in-memory name index
     (src/search/names.ts) updates those entries only; it keeps the last 10,000 changes (an index further behind
     is rebuilt). search_versions holds counters bumped by the writers of what has no trigger (the vector table).
     Written to run again safely (a store set back to an older version replays it): the counts are recomputed. */ `
CREATE TABLE IF NOT EXISTS search_counts (
  vault_id TEXT NOT NULL,
  embedder TEXT NOT NULL,            -- '': all the vault's chunks; an embedder id: its chunks with a vector of their current text
  n INTEGER NOT NULL,
  PRIMARY KEY (vault_id, embedder)
) WITHOUT ROWID;
DELETE FROM search_counts;
INSERT INTO search_counts (vault_id, embedder, n) SELECT vault_id, '', count(*) FROM transcript_chunks GROUP BY vault_id;
INSERT INTO search_counts (vault_id, embedder, n)
  SELECT c.vault_id, ce.embedder, count(*) FROM chunk_embeddings ce JOIN transcript_chunks c ON c.id = ce.chunk_id AND c.content_hash = ce.content_hash
  GROUP BY c.vault_id, ce.embedder;
CREATE TRIGGER IF NOT EXISTS search_counts_chunk_ai AFTER INSERT ON transcript_chunks BEGIN
  INSERT INTO search_counts (vault_id, embedder, n) VALUES (new.vault_id, '', 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
-- BEFORE: the chunk's vector row is still there (transcript_chunks_ad removes it, and then finds no chunk to count down).
CREATE TRIGGER IF NOT EXISTS search_counts_chunk_bd BEFORE DELETE ON transcript_chunks BEGIN
  UPDATE search_counts SET n = n - 1 WHERE vault_id = old.vault_id AND embedder = '';
  UPDATE search_counts SET n = n - 1 WHERE vault_id = old.vault_id
    AND embedder = (SELECT embedder FROM chunk_embeddings WHERE chunk_id = old.id AND content_hash = old.content_hash);
END;
CREATE TRIGGER IF NOT EXISTS search_counts_vector_ai AFTER INSERT ON chunk_embeddings BEGIN
  INSERT INTO search_counts (vault_id, embedder, n)
    SELECT vault_id, new.embedder, 1 FROM transcript_chunks WHERE id = new.chunk_id AND content_hash = new.content_hash
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS search_counts_vector_ad AFTER DELETE ON chunk_embeddings BEGIN
  UPDATE search_counts SET n = n - 1 WHERE embedder = old.embedder
    AND vault_id = (SELECT vault_id FROM transcript_chunks WHERE id = old.chunk_id AND content_hash = old.content_hash);
END;
CREATE TRIGGER IF NOT EXISTS search_counts_vector_au AFTER UPDATE ON chunk_embeddings BEGIN
  UPDATE search_counts SET n = n - 1 WHERE embedder = old.embedder
    AND vault_id = (SELECT vault_id FROM transcript_chunks WHERE id = old.chunk_id AND content_hash = old.content_hash);
  INSERT INTO search_counts (vault_id, embedder, n)
    SELECT vault_id, new.embedder, 1 FROM transcript_chunks WHERE id = new.chunk_id AND content_hash = new.content_hash
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TABLE IF NOT EXISTS entity_name_changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  vault_id TEXT NOT NULL,
  entity_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entity_name_changes_vault ON entity_name_changes(vault_id, seq);
CREATE TRIGGER IF NOT EXISTS entity_name_changes_trim AFTER INSERT ON entity_name_changes BEGIN
  DELETE FROM entity_name_changes WHERE seq <= new.seq - 10000;
END;
CREATE TRIGGER IF NOT EXISTS entity_names_changed_ai AFTER INSERT ON entity_names BEGIN
  INSERT INTO entity_name_changes (vault_id, entity_id) VALUES (new.vault_id, new.entity_id);
END;
CREATE TRIGGER IF NOT EXISTS entity_names_changed_ad AFTER DELETE ON entity_names BEGIN
  INSERT INTO entity_name_changes (vault_id, entity_id) VALUES (old.vault_id, old.entity_id);
END;
CREATE TRIGGER IF NOT EXISTS entity_names_changed_au AFTER UPDATE ON entity_names BEGIN
  INSERT INTO entity_name_changes (vault_id, entity_id) VALUES (old.vault_id, old.entity_id);
  INSERT INTO entity_name_changes (vault_id, entity_id) VALUES (new.vault_id, new.entity_id);
END;
CREATE TRIGGER IF NOT EXISTS entity_type_changed_au AFTER UPDATE OF type ON entities WHEN old.type IS NOT new.type BEGIN
  INSERT INTO entity_name_changes (vault_id, entity_id) VALUES (new.vault_id, new.id);
END;
INSERT INTO entity_name_changes (vault_id, entity_id) VALUES ('', ''); -- a first seq, so an index built now has one to start from

CREATE TABLE IF NOT EXISTS search_versions (
  name TEXT PRIMARY KEY,
  version INTEGER NOT NULL
) WITHOUT ROWID;
`,
  /* 8 (issue 19): a chunk's content_hash is the SHA-256 of the text the embedder reads (embeddingText: editorial
     marks such as {disfmarker} or [inaudible], fillers and spoken repeats left out), no longer of its stored text.
     Re-keyed here, a page of chunks at a time: the chunks whose text had any of these are embedded again by the
     next indexing pass (their old vectors serve until then), the others keep theirs. The vector counts of
     search_counts follow. */
  (db) => {
    const page = db.prepare('SELECT id, text, content_hash FROM transcript_chunks WHERE id > ? ORDER BY id LIMIT 2000');
    const rekey = db.prepare('UPDATE transcript_chunks SET content_hash = ? WHERE id = ?');
    let changed = 0;
    for (let after = 0; ; ) {
      const rows = page.all(after) as { id: number; text: string; content_hash: string }[];
      if (!rows.length) break;
      after = rows.at(-1)!.id;
      for (const r of rows) {
        const key = contentHashV8(r.text);
        if (key !== r.content_hash) rekey.run(key, r.id), changed++;
      }
    }
    if (!changed) return;
    db.exec(`DELETE FROM search_counts WHERE embedder <> '';
      INSERT INTO search_counts (vault_id, embedder, n)
        SELECT c.vault_id, ce.embedder, count(*) FROM chunk_embeddings ce JOIN transcript_chunks c ON c.id = ce.chunk_id AND c.content_hash = ce.content_hash
        GROUP BY c.vault_id, ce.embedder;`);
  },
  /* 9: an Idempotency-Key belongs to the caller that sent it (docs/errors.md, idempotency_key_reused): it is kept
     beside the outbox entry's own id (which sync sends upstream), unique per API key rather than across all of
     them. The entries of before were looked up by their id, so that id is also their key: a retry sent across
     the upgrade still gets its first answer. Written to run again safely (a store set back to an older version). */
  (db) => {
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('outbox');
    if (!columns.includes('idempotency_key'))
      db.exec(
        'ALTER TABLE outbox ADD COLUMN idempotency_key TEXT; UPDATE outbox SET idempotency_key = idempotency_id;',
      );
    db.exec(
      'CREATE UNIQUE INDEX IF NOT EXISTS outbox_idempotency_key ON outbox(key_id, idempotency_key) WHERE idempotency_key IS NOT NULL;',
    );
  },
  /* 10 (issue 33): OAuth. oauth_records holds what the authorization server (oidc-provider) keeps: codes,
     tokens, sessions, interactions, clients registered dynamically. A record is found by the SHA-256 of its id,
     so a token value is never stored (an opaque token's id is the token itself). oauth_grants is what a person
     approved on the consent page: which key approved it, the vaults and role it carries; a token is worth no
     more than its grant and its grant no more than its key. */
  `CREATE TABLE IF NOT EXISTS oauth_records (
  model TEXT NOT NULL,
  id_hash TEXT NOT NULL,
  payload TEXT NOT NULL,
  grant_id TEXT,
  uid TEXT,
  user_code TEXT,
  expires_at INTEGER,              -- ms since the epoch; NULL never
  consumed_at INTEGER,
  PRIMARY KEY (model, id_hash)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS oauth_records_grant ON oauth_records(grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS oauth_records_uid ON oauth_records(model, uid) WHERE uid IS NOT NULL;
CREATE TABLE IF NOT EXISTS oauth_grants (
  id TEXT PRIMARY KEY,             -- oidc-provider's grant id
  key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  client_id TEXT NOT NULL,
  client_name TEXT NOT NULL,
  redirect_host TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('member', 'manager')),
  vaults_json TEXT NOT NULL,       -- the approved vault ids, a JSON array
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  last_used_at TEXT
);
`,
  /* 11 (issue 52): what blocks a task, where the board records it: a JSON array of {task (number) | person (name)
     | eventId, note?, dueDate?} (src/vault-format/schema.ts, taskBlockerSchema); NULL when nothing is recorded.
     The hosted service has no such field: a board synced from it has none. Written to run again safely. */
  (db) => {
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('tasks');
    if (!columns.includes('blocked_by_json')) db.exec('ALTER TABLE tasks ADD COLUMN blocked_by_json TEXT');
  },
  /* 12 (issue 53): one format for every stored moment; see wholeSecondTimes below */
  (db) => wholeSecondTimes(db),
];

/**
 * Migration 11 (issue 53): one format for every stored moment, UTC to the whole second ("2026-11-26T12:40:00Z", as
 * fixtures and the hosted service write them; src/time.ts isoUtc), so text order is time order. Local writes
 * stored milliseconds ("…:05.123Z", which sorts before "…:05Z") and upstream times were kept as sent (an offset,
 * milliseconds): every TEXT column named `at` or `…_at` is rewritten to that format where it holds a date-time
 * SQLite reads. Self-contained (it lists the columns itself), so it runs the same on any store; running it again
 * changes nothing.
 */
export function wholeSecondTimes(db: Database.Database): void {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%'",
    )
    .pluck()
    .all() as string[];
  for (const table of tables) {
    const columns = db.prepare('SELECT name, type FROM pragma_table_info(?)').all(table) as {
      name: string;
      type: string;
    }[];
    for (const { name } of columns.filter((c) => /^(.+_)?at$/.test(c.name) && c.type.toUpperCase() === 'TEXT')) {
      const whole = `strftime('%Y-%m-%dT%H:%M:%SZ', "${name}")`;
      db.exec(
        `UPDATE "${table}" SET "${name}" = ${whole} WHERE "${name}" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*' AND ${whole} IS NOT NULL AND "${name}" <> ${whole}`,
      );
    }
  }
}
