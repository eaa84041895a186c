/**
 * Where the remote comes from: `--remote`/`--remote-key`, else VAULT_TOOLS_REMOTE_URL / VAULT_TOOLS_REMOTE_KEY,
 * else what `vault-tools remote set` stored in the data dir (`remote.json` for the URL, `remote.key`, mode
 * 0600, for the key). The key is never printed.
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RemoteConfig {
  url: string;
  key: string;
  /** Where each came from, for messages (never the key itself). */
  urlFrom: string;
  keyFrom: string;
}

const urlFile = (dataDir: string) => join(dataDir, 'remote.json');
const keyFile = (dataDir: string) => join(dataDir, 'remote.key');

/**
 * What `remote set` stored. `broken` is a sentence when remote.json is there but unusable (not JSON, no `url`
 * string: edited by hand, cut short), so every command says so plainly instead of failing on it.
 */
export function storedRemote(dataDir: string): { url?: string; hasKey: boolean; broken?: string } {
  const hasKey = existsSync(keyFile(dataDir));
  const file = urlFile(dataDir);
  if (!existsSync(file)) return { hasKey };
  const fix = 'fix it, or write it again with `vault-tools remote set URL --key KEY`';
  let stored: unknown;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return { hasKey, broken: `${file} is not valid JSON (${(err as Error).message.split('\n')[0]}): ${fix}` };
  }
  const url = (stored as { url?: unknown } | null)?.url;
  if (typeof url !== 'string' || !url) return { hasKey, broken: `${file} has no "url" string: ${fix}` };
  return { url, hasKey };
}

export function saveRemote(dataDir: string, url: string, key: string | undefined): void {
  writeFileSync(urlFile(dataDir), `${JSON.stringify({ url }, null, 2)}\n`, { mode: 0o600 });
  if (key !== undefined) {
    writeFileSync(keyFile(dataDir), `${key}\n`, { mode: 0o600 });
    chmodSync(keyFile(dataDir), 0o600); // an existing file keeps its old mode otherwise
  }
}

export function forgetRemote(dataDir: string): void {
  rmSync(urlFile(dataDir), { force: true });
  rmSync(keyFile(dataDir), { force: true });
}

/** The remote to use, or a sentence saying what is missing and how to give it. */
export function resolveRemote(
  dataDir: string,
  options: { remote?: string; remoteKey?: string },
): RemoteConfig | string {
  const stored = storedRemote(dataDir);
  const [url, urlFrom] = options.remote
    ? [options.remote, '--remote']
    : process.env.VAULT_TOOLS_REMOTE_URL
      ? [process.env.VAULT_TOOLS_REMOTE_URL, 'VAULT_TOOLS_REMOTE_URL']
      : [stored.url, urlFile(dataDir)];
  const [key, keyFrom] = options.remoteKey
    ? [options.remoteKey, '--remote-key']
    : process.env.VAULT_TOOLS_REMOTE_KEY
      ? [process.env.VAULT_TOOLS_REMOTE_KEY, 'VAULT_TOOLS_REMOTE_KEY']
      : stored.hasKey
        ? [readFileSync(keyFile(dataDir), 'utf8').trim(), keyFile(dataDir)]
        : [undefined, ''];
  if (!url && stored.broken) return stored.broken;
  if (!url)
    return 'no remote configured: pass --remote URL, set VAULT_TOOLS_REMOTE_URL, or run `vault-tools remote set URL --key KEY`';
  if (!key)
    return `no key for ${url}: pass --remote-key KEY, set VAULT_TOOLS_REMOTE_KEY, or run \`vault-tools remote set ${url} --key KEY\``;
  return { url, key, urlFrom, keyFrom };
}

/**
 * Whether a remote URL sends the key in clear text over a network: plain http to a host other than this
 * machine (loopback names and addresses are fine, https always is).
 */
export function isCleartextRemote(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'http:') return false;
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return !(host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '::1');
}

/** The origin and the path before `/v1` of a remote URL; throws a sentence when it is not an http(s) URL. */
export function parseRemoteUrl(url: string): { origin: string; basePath: string } {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new Error(
      `the remote URL "${url}" is not a URL (expected e.g. https://vault.example.com or http://127.0.0.1:8787)`,
    );
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new Error(`the remote URL must be http(s), got "${url}"`);
  return { origin: base.origin, basePath: base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '') };
}
