/**
 * A small, valid vault directory written from scratch (one meeting, two entities, one of most other
 * records), for tests that break it one way at a time. `writeTinyVault` returns the directory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type TinyVault = Record<string, unknown> & {
  vault: Record<string, unknown>;
  meetings: Record<string, unknown>[];
};

export function tinyVault(overrides: { id?: string; name?: string } = {}): TinyVault {
  const at = '2026-01-05T09:00:00Z';
  return {
    vault: {
      formatVersion: 1,
      id: overrides.id ?? 'tiny',
      name: overrides.name ?? 'Tiny Vault',
      client: 'Tiny Ltd',
      description: 'Month-end close review for Tiny Ltd.',
      keywords: ['month-end close', 'ledger'],
      summary: 'Reviewing how Tiny Ltd closes its books.',
      boardPrefix: 'TN',
      agentEmail: 'agent@tiny.test',
      referenceDate: '2026-01-10',
    },
    people: [
      { id: 'p-ana', name: 'Ana Ruiz', email: 'ana@tiny.test', title: 'COO', organisation: 'Tiny Ltd' },
      { id: 'p-bo', name: 'Bo Lind', email: 'bo@tiny.test', title: 'Controller', organisation: 'Tiny Ltd' },
    ],
    entities: [
      {
        id: 'sys-ledger',
        type: 'system',
        name: 'Ledger',
        aliases: ['general ledger'],
        description: 'The accounting system.',
        source: 'meeting',
      },
      {
        id: 'kpi-close',
        type: 'kpi',
        name: 'Close Time',
        aliases: [],
        description: 'Days to close the month.',
        source: 'meeting',
      },
    ],
    edges: [{ from: 'sys-ledger', to: 'kpi-close', relation: 'affects' }],
    meetings: [
      {
        id: 'm1',
        name: 'Kick-off',
        startedAt: at,
        durationMinutes: 30,
        attendees: ['Ana Ruiz', 'Bo Lind'],
        extractionStatus: 'extracted',
        notes: '',
        transcript: [
          { speaker: 'Ana Ruiz', text: 'The Ledger drives our Close Time of nine days.', at: 0 },
          { speaker: 'Bo Lind', text: 'Close Time is six days by my count.', at: 30 },
        ],
        evidence: [{ entityId: 'kpi-close', turn: 0, quote: 'Close Time of nine days' }],
      },
    ],
    conflicts: [
      {
        id: 'c1',
        entityId: 'kpi-close',
        title: 'Close time: nine days or six',
        claims: [
          { meetingId: 'm1', turn: 0, quote: 'nine days' },
          { meetingId: 'm1', turn: 1, quote: 'six days' },
        ],
        status: 'open',
        createdAt: at,
        updatedAt: at,
      },
    ],
    tasks: [{ number: 1, title: 'Measure the close time', status: 'todo', createdAt: at, updatedAt: at }],
    'plan-steps': [
      {
        id: 'ps-baseline',
        title: 'Baseline the close',
        status: 'planned',
        proposedBy: 'agent',
        proposerName: 'Tiny agent',
      },
    ],
    'sent-emails': [
      {
        id: 's1',
        threadId: 't1',
        messageId: '<s1@tiny.test>',
        to: ['ana@tiny.test'],
        subject: 'Kick-off notes',
        body: 'Notes attached.',
        sentAt: at,
      },
    ],
    mailbox: [
      {
        id: 't2',
        subject: 'Ledger access',
        messages: [
          { id: '<m1@tiny.test>', from: 'bo@tiny.test', to: ['agent@tiny.test'], sentAt: at, body: 'Access granted.' },
        ],
      },
    ],
  };
}

/** Writes a vault (each family as `<family>.json`, each meeting as `meetings/<id>.json`) into `dir`. */
export function writeTinyVault(dir: string, v: TinyVault = tinyVault()): string {
  mkdirSync(join(dir, 'meetings'), { recursive: true });
  for (const [family, value] of Object.entries(v)) {
    if (family !== 'meetings') writeFileSync(join(dir, `${family}.json`), JSON.stringify(value, null, 2));
  }
  for (const m of v.meetings) writeFileSync(join(dir, 'meetings', `${m.id}.json`), JSON.stringify(m, null, 2));
  return dir;
}
