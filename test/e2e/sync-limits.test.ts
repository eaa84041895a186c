/**
 * What a sync remote may cost (src/sync/limits.ts, docs/security.md): a real `vault-tools serve --http`
 * behind a proxy that answers the way a hostile or broken remote would: a cursor that never ends or comes
 * back, a transcript whose pages never end, many large files, an answer trickled a byte at a time, error
 * messages carrying terminal escape sequences, a list answered without its field. Each limit is set low
 * through its environment variable, so nothing here pulls a gigabyte or waits an hour.
 */
import { spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { BIN, tempDir } from '../helpers.js';
import { callTool } from '../http-helpers.js';
import { rewritingProxy, useHostedDemo, type Rewrites } from '../sync-helpers.js';

const ENV = {
  VAULT_TOOLS_KEY: '',
  VAULT_TOOLS_HOME: '',
  VAULT_TOOLS_REMOTE_URL: '',
  VAULT_TOOLS_REMOTE_KEY: '',
  VAULT_TOOLS_INDEX: 'off',
};
const NW = 'northwind-logistics';
const KiB = 1024;
const MiB = 1024 * KiB;
/** What a remote may try to put on a terminal: set the window title, clear the screen, a line of its own, an 8-bit CSI, a bidi override. */
const ESCAPES = '\u001b]0;pwned\u0007\u001b[2J\r\nsync finished OK\u009b31m\u202e';
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]|\nsync finished OK/;

interface Report {
  errors: { vault: string; error: string }[];
  pulled: { vaultId: string }[];
  skipped: string[];
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  report?: Report;
}

/**
 * `vault-tools <args>` in a child process (the proxy lives in this one). Killed after `giveUpMs`, so a sync
 * the old code would have let run for ever ends the test with its failure rather than a hang.
 */
function run(args: string[], env: Record<string, string> = {}, giveUpMs = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...ENV, ...env } });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), giveUpMs);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, report: stdout.startsWith('{') ? (JSON.parse(stdout) as Report) : undefined });
    });
  });
}

const syncArgs = (dataDir: string, remote: string, key: string, ...more: string[]) => [
  'sync',
  '--pull-only',
  '--remote',
  remote,
  '--remote-key',
  key,
  '--data-dir',
  dataDir,
  ...more,
];

function count(dataDir: string, query: string, ...params: unknown[]): number {
  const db = openDb(dataDir);
  try {
    return db
      .prepare(query)
      .pluck()
      .get(...params) as number;
  } finally {
    db.close();
  }
}

/** A tool's answer written by the proxy itself. */
function answerJson(res: ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
  return true;
}

describe('what a sync remote may cost', () => {
  const hosted = useHostedDemo();
  const synced = tempDir('vt-synced-');

  beforeAll(async () => {
    // A clean pull, copied by the tests that start from a synced store.
    const clean = await run(syncArgs(synced.dir, hosted.url, hosted.key, '--json'));
    expect(clean.report?.errors).toEqual([]);
  });
  afterAll(async () => {
    synced.cleanup();
  });

  /** A data dir holding the clean pull. */
  const syncedCopy = () => {
    const copy = tempDir('vt-copy-');
    cpSync(synced.dir, copy.dir, { recursive: true });
    return copy;
  };

  async function withProxy<T>(rewrites: Rewrites, body: (url: string) => Promise<T>): Promise<T> {
    const proxy = await rewritingProxy(hosted.url, rewrites);
    try {
      return await body(proxy.url);
    } finally {
      await proxy.close();
    }
  }

  it('a list_findings cursor that never ends, or comes back, stops at the page limit and removes nothing', async () => {
    for (const [cursorOf, expected] of [
      [
        (n: number) => `page-${n}`,
        /^list_findings: more than 20 pages \(VAULT_TOOLS_SYNC_MAX_PAGES\), so the walk stopped there$/,
      ],
      [
        (n: number) => (n % 2 ? 'a' : 'b'),
        /^list_findings: page 3 sends back a cursor already followed, so the walk would never end$/,
      ],
    ] as const) {
      const local = syncedCopy();
      const entities = count(local.dir, 'SELECT COUNT(*) FROM entities WHERE vault_id = ?', NW);
      let pages = 0;
      try {
        const r = await withProxy(
          {
            answer(req, res, tool, args) {
              if (tool !== 'list_findings' || args?.vault !== NW) return false;
              pages++;
              // The old code follows for ever: after 300 pages the proxy ends the walk, so the test ends too.
              return answerJson(res, 200, {
                data: { findings: [], nextCursor: pages < 300 ? cursorOf(pages) : null, total: 1_000_000 },
              });
            },
          },
          (url) => run(syncArgs(local.dir, url, hosted.key, '--full', '--json'), { VAULT_TOOLS_SYNC_MAX_PAGES: '20' }),
        );
        expect(r.report?.errors.map((e) => e.vault)).toEqual([NW]);
        expect(r.report?.errors[0]?.error).toMatch(expected);
        expect(pages).toBeLessThanOrEqual(21);
        // The walk never finished, so no entity is taken as gone upstream.
        expect(count(local.dir, 'SELECT COUNT(*) FROM entities WHERE vault_id = ?', NW)).toBe(entities);
      } finally {
        local.cleanup();
      }
    }
  });

  it('a transcript whose pages never end is capped: that meeting is skipped and named, the others land', async () => {
    const meetings = (await callTool(hosted.url, 'list_meetings', { vault: NW }, hosted.key)).json().data.meetings as {
      id: string;
    }[];
    const endless = meetings[0]!.id;
    const local = tempDir('vt-transcript-');
    let pages = 0;
    try {
      const r = await withProxy(
        {
          answer(req, res, tool, args) {
            if (tool !== 'get_transcript' || args?.vault !== NW || args.meetingId !== endless) return false;
            pages++;
            const offset = Number(args.offset);
            // 50 chunks of 2 KiB a page, and a next offset that only grows by one: the old code held every page.
            const chunks = Array.from({ length: 50 }, (_, i) => ({
              index: offset + i,
              speakers: ['Ana'],
              text: `Ana: ${'x'.repeat(2 * KiB)}`,
              startSeconds: offset + i,
            }));
            return answerJson(res, 200, { data: { chunks, nextOffset: pages < 300 ? offset + 1 : null } });
          },
        },
        (url) =>
          run(syncArgs(local.dir, url, hosted.key, '--json'), {
            VAULT_TOOLS_SYNC_MAX_TRANSCRIPT_BYTES: String(256 * KiB),
          }),
      );
      expect(r.report?.errors).toEqual([]);
      expect(r.report?.skipped).toContain(
        `transcript: meeting ${JSON.stringify(endless)}: get_transcript: more than 262,144 bytes of text (VAULT_TOOLS_SYNC_MAX_TRANSCRIPT_BYTES), so it was not stored`,
      );
      expect(pages).toBe(3); // 2 pages are 200 KiB, the third passes 256 KiB
      expect(
        count(local.dir, 'SELECT COUNT(*) FROM transcript_turns WHERE vault_id = ? AND meeting_id = ?', NW, endless),
      ).toBe(0);
      const others = count(local.dir, 'SELECT COUNT(DISTINCT meeting_id) FROM transcript_turns WHERE vault_id = ?', NW);
      expect(others).toBe(meetings.length - 1);
    } finally {
      local.cleanup();
    }
  });

  it('file texts are fetched one at a time within a byte budget; the rest come with a later sync', async () => {
    const local = tempDir('vt-files-');
    const FILES = 8;
    let inFlight = 0;
    let mostInFlight = 0;
    let downloads = 0;
    const rewrites: Rewrites = {
      answer(req, res) {
        const m = /^\/big\/(\d+)$/.exec(req.url ?? '');
        if (!m) return false;
        downloads++;
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        res.once('close', () => inFlight--);
        // Slow enough that downloads asked together would overlap.
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(Buffer.alloc(MiB, 0x61 + Number(m[1])));
        }, 50);
        return true;
      },
      response(tool, args, answer) {
        if (tool !== 'list_files' || args.vault !== NW) return answer;
        const data = answer.data as { files: unknown[] };
        const big = Array.from({ length: FILES }, (_, i) => ({
          id: `big_${i}`,
          name: `big-${i}.txt`,
          description: '',
          mimeType: 'text/plain',
          sizeBytes: MiB,
          downloadUrl: `/big/${i}`,
          createdAt: '2026-01-01T00:00:00Z',
        }));
        return { data: { ...data, files: [...data.files, ...big] } };
      },
    };
    const texts = () => {
      const db = openDb(local.dir);
      try {
        return db
          .prepare(
            "SELECT id, length(content_text) AS length FROM files WHERE vault_id = ? AND id LIKE 'big_%' ORDER BY id",
          )
          .all(NW) as { id: string; length: number | null }[];
      } finally {
        db.close();
      }
    };
    try {
      await withProxy(rewrites, async (url) => {
        const r = await run(syncArgs(local.dir, url, hosted.key, '--json'), {
          VAULT_TOOLS_SYNC_MAX_FILE_BYTES: String(3 * MiB),
        });
        expect(r.report?.errors).toEqual([]);
        expect(mostInFlight).toBe(1);
        expect(downloads).toBe(3);
        const stored = texts();
        expect(stored).toHaveLength(FILES); // every file is listed…
        expect(stored.filter((f) => f.length === MiB)).toHaveLength(3); // …three with their text, the budget's worth
        const waiting = stored.filter((f) => f.length === null).map((f) => f.id);
        expect(waiting).toHaveLength(FILES - 3);
        // (The fixture's own files, a few KB, came first.)
        for (const id of waiting) {
          expect(r.report?.skipped.join('\n')).toMatch(
            new RegExp(
              `^files: text of "${id}": this pull already took 3,1\\d\\d,\\d{3} bytes of file text, its budget is 3,145,728 \\(VAULT_TOOLS_SYNC_MAX_FILE_BYTES\\); the file is listed without its text until a later sync$`,
              'm',
            ),
          );
        }
        // The next sync (its list unchanged) fetches what the budget left out, and only that.
        const again = await run(syncArgs(local.dir, url, hosted.key, '--json'));
        expect(again.report?.errors).toEqual([]);
        expect(downloads).toBe(FILES);
        expect(texts().every((f) => f.length === MiB)).toBe(true);
      });
    } finally {
      local.cleanup();
    }
  });

  it('an answer trickled a byte at a time meets the request deadline, and a sync that runs too long its own', async () => {
    const local = tempDir('vt-trickle-');
    let trickling = 0;
    const rewrites: Rewrites = {
      answer(req, res, tool, args) {
        if (tool !== 'list_milestones' || args?.vault !== NW) return false;
        trickling++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"data":{"milestones":[');
        // A byte every 100 ms keeps every idle timeout from firing; after 30 s the proxy gives up (the old code would not).
        const started = Date.now();
        const timer = setInterval(
          () => (Date.now() - started > 30_000 ? (clearInterval(timer), res.end(']}}')) : res.write(' ')),
          100,
        );
        res.once('close', () => clearInterval(timer));
        return true;
      },
    };
    try {
      await withProxy(rewrites, async (url) => {
        const r = await run(syncArgs(local.dir, url, hosted.key, '--json'), {
          VAULT_TOOLS_SYNC_REQUEST_DEADLINE_MS: '1500',
        });
        expect(r.report?.errors).toEqual([
          {
            vault: NW,
            error:
              'POST /v1/tools/list_milestones: no complete answer within 1.5 s (VAULT_TOOLS_SYNC_REQUEST_DEADLINE_MS), so it was stopped',
          },
        ]);
        expect(trickling).toBe(1); // not retried: it would trickle again
        expect(r.report?.pulled.map((p) => p.vaultId)).toEqual(['meridian-health']);

        const whole = await run(syncArgs(local.dir, url, hosted.key), { VAULT_TOOLS_SYNC_DEADLINE_MS: '3000' });
        expect(whole.code).toBe(1);
        expect(whole.stderr).toContain(
          'the sync ran past its deadline of 3 s (VAULT_TOOLS_SYNC_DEADLINE_MS) and was stopped; what landed is kept and the next sync resumes from there',
        );
        // The lock went with it: the next sync runs.
        expect((await run(syncArgs(local.dir, hosted.url, hosted.key, '--json'))).report?.errors).toEqual([]);
      });
    } finally {
      local.cleanup();
    }
  }, 90_000);

  it("a remote's error messages reach neither the terminal nor the stored status with their control characters", {
    timeout: 90_000,
  }, async () => {
    const local = syncedCopy();
    try {
      // A refused key: the 401 line.
      const refused = await withProxy(
        { answer: (req, res) => answerJson(res, 401, { error: { code: 'unauthorized', message: ESCAPES } }) },
        (url) => run(syncArgs(local.dir, url, hosted.key)),
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'the remote refused the key (401 unauthorized): \\u001b]0;pwned\\u0007\\u001b[2J\\u000d\\u000async finished OK\\u009b31m\\u202e.',
      );
      expect(refused.stderr).not.toMatch(RAW);

      // A refused call: the report (text and JSON), then `sync --status`, which replays what was stored.
      const rewrites: Rewrites = {
        answer: (req, res, tool, args) =>
          tool === 'list_milestones' &&
          args?.vault === NW &&
          answerJson(res, 400, { error: { code: `bad${ESCAPES}`, message: ESCAPES } }),
      };
      const text = await withProxy(rewrites, (url) => run(syncArgs(local.dir, url, hosted.key)));
      expect(text.code).toBe(1);
      expect(text.stderr).toContain(`error in ${NW}: \\u001b]0;pwned`);
      expect(text.stderr).not.toMatch(RAW);
      const json = await withProxy(rewrites, (url) => run(syncArgs(local.dir, url, hosted.key, '--json')));
      expect(json.report?.errors[0]?.error).toBe(
        '\\u001b]0;pwned\\u0007\\u001b[2J\\u000d\\u000async finished OK\\u009b31m\\u202e',
      );
      const status = await run(['sync', '--status', '--data-dir', local.dir]);
      expect(status.stdout).toContain('last error: \\u001b]0;pwned');
      expect(status.stdout).not.toMatch(RAW);

      // An error stored raw by an older version is escaped when shown.
      const db = openDb(local.dir);
      db.prepare('UPDATE sync_state SET last_error = ? WHERE vault_id = ?').run(ESCAPES, NW);
      db.close();
      for (const args of [[], ['--json']]) {
        const replayed = await run(['sync', '--status', '--data-dir', local.dir, ...args]);
        expect(replayed.stdout).toContain('\\u001b]0;pwned');
        expect(replayed.stdout).not.toMatch(RAW);
      }
    } finally {
      local.cleanup();
    }
  });

  it('a list answered without its field is skipped alone, named in the report; what was stored stays', async () => {
    const local = syncedCopy();
    const stored = () => ({
      milestones: count(local.dir, 'SELECT COUNT(*) FROM milestones WHERE vault_id = ?', NW),
      tasks: count(local.dir, 'SELECT COUNT(*) FROM tasks WHERE vault_id = ?', NW),
      meetings: count(local.dir, 'SELECT COUNT(*) FROM meetings WHERE vault_id = ?', NW),
    });
    try {
      const before = stored();
      expect(before.milestones).toBeGreaterThan(0);
      expect(before.tasks).toBeGreaterThan(0);
      const r = await withProxy(
        {
          answer(req, res, tool, args) {
            if (args?.vault !== NW) return false;
            if (tool === 'list_milestones') return answerJson(res, 200, { data: {} });
            if (tool === 'list_tasks') return answerJson(res, 200, { data: { tasks: null } });
            if (tool === 'list_meetings') return answerJson(res, 200, { data: { meetings: 'none' } });
            return false;
          },
        },
        (url) => run(syncArgs(local.dir, url, hosted.key, '--json')),
      );
      expect(r.report?.errors).toEqual([]);
      expect(r.report?.pulled.map((p) => p.vaultId).sort()).toEqual(['meridian-health', NW]);
      expect(r.report?.skipped).toEqual(
        expect.arrayContaining([
          'milestones: the answer has no list of milestones (got undefined), so the stored ones are kept',
          'tasks: the answer has no list of tasks (got null), so the stored ones are kept',
          'meetings: list_meetings answered without a "meetings" list, so the stored meetings are kept',
        ]),
      );
      expect(stored()).toEqual(before);
    } finally {
      local.cleanup();
    }
  });
});
