/**
 * Argument completion for the prompts and resource templates a surface offers (MCP completion/complete): the
 * vaults the key reaches (ids and names, never others), brief kinds, and the artifact and file ids of a vault the
 * key reaches. Prefix match, case-insensitive for names; at most MAX_COMPLETIONS values, with whether more matched.
 */
import type { Principal } from '../core/principal.js';
import { BRIEF_KINDS } from '../core/vocabulary.js';
import { artifactIdsStartingWith, listPublicFiles } from '../store/files.js';
import { findReachableVault, reachableVaults } from '../store/vaults.js';
import type { Service } from './invoke.js';

/** MCP caps a completion answer at 100 values. */
export const MAX_COMPLETIONS = 100;

export interface Completion {
  values: string[];
  total: number;
  hasMore: boolean;
}

const NONE: Completion = { values: [], total: 0, hasMore: false };

/**
 * Values for the argument `name` of a resource template, given what the user typed (`value`) and the template's
 * other arguments already chosen (`context`, e.g. the vault when completing an artifact id). An argument this
 * server does not complete (a free-text prompt argument) gets no values.
 */
export function completeArgument(
  service: Service,
  who: Principal,
  name: string,
  value: string,
  context: Record<string, string> = {},
): Completion {
  switch (name) {
    case 'vault':
      return vaultCompletion(service, who, value);
    case 'kind':
      return fromList(BRIEF_KINDS, value);
    case 'artifactId':
    case 'fileId': {
      const vault = context.vault === undefined ? undefined : findReachableVault(service.db, who, context.vault);
      if (!vault) return NONE;
      if (name === 'fileId')
        return fromList(
          listPublicFiles(service.db, vault.id).map((f) => f.id),
          value,
        );
      // One more than the cap tells whether more matched without counting them all.
      const ids = artifactIdsStartingWith(service.db, vault.id, value, MAX_COMPLETIONS + 1);
      return { values: ids.slice(0, MAX_COMPLETIONS), total: ids.length, hasMore: ids.length > MAX_COMPLETIONS };
    }
    default:
      return NONE;
  }
}

/** The key's vaults whose id or name starts with `value`: ids first (what a URI needs), then names. */
function vaultCompletion(service: Service, who: Principal, value: string): Completion {
  const vaults = reachableVaults(service.db, who);
  const lower = value.toLowerCase();
  const ids = vaults.filter((v) => v.id.toLowerCase().startsWith(lower)).map((v) => v.id);
  const names = vaults
    .filter((v) => v.name.toLowerCase().startsWith(lower) && !ids.includes(v.name))
    .map((v) => v.name);
  return fromList([...new Set([...ids, ...names])], '');
}

function fromList(all: readonly string[], prefix: string): Completion {
  const lower = prefix.toLowerCase();
  const matches = all.filter((v) => v.toLowerCase().startsWith(lower));
  return {
    values: matches.slice(0, MAX_COMPLETIONS),
    total: matches.length,
    hasMore: matches.length > MAX_COMPLETIONS,
  };
}

/** The vaults a key reaches, as choices to offer a person (id and name), in the store's order. */
export function vaultChoices(service: Service, who: Principal): { id: string; name: string }[] {
  return reachableVaults(service.db, who).map((v) => ({ id: v.id, name: v.name }));
}
