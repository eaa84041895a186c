/**
 * The in-process harness (issue 20): a Service over a temp store holding fixture vaults, with a principal of
 * each kind, and `call`, which goes the way every MCP, REST and CLI call goes (validation, vault resolution,
 * access, error mapping; `Service.invoke`). Use it wherever the process itself is not what a test is about:
 * it answers in milliseconds what a spawned `serve` answers in seconds.
 */
import { authenticate, createKey } from '../src/auth/keys.js';
import type { Principal } from '../src/core/principal.js';
import { loadFixture } from '../src/load/load.js';
import { readVaultDir } from '../src/vault-format/read.js';
import { closeChartRenderer } from '../src/render/chart/index.js';
import { Service, type CallOptions, type InvokeResult, type ServiceOptions } from '../src/service/invoke.js';
import { openDb, type Db } from '../src/store/db.js';
import { listOutbox, type OutboxEntry } from '../src/store/outbox.js';
import { FIXTURE_DIRS, tempDir } from './helpers.js';

/** Who calls: the owner (a manager key reaching every vault), a member granted the first vault, a member of the others only. */
export type As = 'owner' | 'member' | 'outsider';

type Data = Record<string, any>;

export interface Harness {
  /** The data dir: the store file, artifacts and mail live here. */
  dir: string;
  db: Db;
  service: Service;
  /** Vault ids loaded, in the order asked for. */
  vaults: string[];
  keys: Record<As, string>;
  principals: Record<As, Principal>;
  /** One call through the service path; the same result union MCP and REST map to their answers. */
  call(tool: string, args: Record<string, unknown>, as?: As, options?: CallOptions): Promise<InvokeResult>;
  /** A call that must succeed: its data (throws with the error code and message otherwise). */
  ok(tool: string, args: Record<string, unknown>, as?: As): Promise<Data>;
  /** Every outbox entry, oldest first (what `vault-tools outbox --json` prints). */
  outbox(vaultId?: string): OutboxEntry[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** The shipped vaults to load (both by default); the member key is granted the first. */
  vaults?: (keyof typeof FIXTURE_DIRS)[];
  /** The clock the import shifts dates to and the service reads; today by default. */
  now?: Date;
  service?: Omit<ServiceOptions, 'dataDir' | 'now'>;
}

export function harness(options: HarnessOptions = {}): Harness {
  const { dir, cleanup } = tempDir('vt-harness-');
  const db = openDb(dir);
  const vaults = (options.vaults ?? ['northwind', 'meridian']).map(
    (name) => loadFixture(db, readVaultDir(FIXTURE_DIRS[name]), { origin: 'fixture', now: options.now }).vaultId,
  );
  const key = (name: As, role: 'manager' | 'member', grant: string[] | '*') =>
    createKey(db, { name, role, vaults: grant }).key;
  const keys: Record<As, string> = {
    owner: key('owner', 'manager', '*'),
    member: key('member', 'member', vaults.slice(0, 1)),
    outsider: key('outsider', 'member', vaults.slice(1)),
  };
  // Through authenticate, as a surface turns a key into a principal.
  const principals = Object.fromEntries(Object.entries(keys).map(([as, k]) => [as, authenticate(db, k)])) as Record<
    As,
    Principal
  >;
  const service = new Service(db, {
    ...options.service,
    dataDir: dir,
    ...(options.now ? { now: () => options.now! } : {}),
  });

  const call = (tool: string, args: Record<string, unknown>, as: As = 'owner', callOptions?: CallOptions) =>
    service.invoke(tool, args, principals[as], callOptions);
  return {
    dir,
    db,
    service,
    vaults,
    keys,
    principals,
    call,
    async ok(tool, args, as) {
      const r = await call(tool, args, as);
      if (!r.ok) throw new Error(`${tool} answered ${r.status} ${r.code}: ${r.message}`);
      return r.data;
    },
    outbox: (vaultId) => listOutbox(db, { vaultId, limit: 10_000 }),
    async close() {
      await closeChartRenderer();
      db.close();
      cleanup();
    },
  };
}
