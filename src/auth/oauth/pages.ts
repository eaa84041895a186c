/**
 * The HTML pages of the OAuth endpoints (the consent page, the authorization server's error page, a refusal of an
 * over-large or too-frequent authorization), all under one set of headers: not frameable, no script, nothing
 * loaded from elsewhere, no Referer to another site. Text from a client is escaped and its bidi controls removed.
 */
import type { ServerResponse } from 'node:http';
import { stripInvisible } from '../../core/bidi.js';

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  // `script-src 'strict-dynamic'` allows no script at all, but gives oidc-provider a directive to add the hash of
  // its one inline script to (the `form_post` response page, which otherwise never submits).
  'Content-Security-Policy':
    "default-src 'none'; script-src 'strict-dynamic'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  // Not no-referrer: under it a browser sends `Origin: null` with the consent form's POST, which the listener
  // refuses. same-origin still tells the client's site nothing (no Referer on the redirect there).
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

/** Text for an HTML page: markup escaped, bidi controls removed. */
export const escapeHtml = (s: string): string => stripInvisible(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}.who{background:#f4f4f6;border-radius:8px;padding:.8rem 1rem}.err{background:#fde8e8;color:#8a1010;border-radius:8px;padding:.6rem 1rem}
code{overflow-wrap:anywhere}`;

/** A whole page: `title` is text, `body` is HTML the caller has escaped. */
export function pageHtml(title: string, body: string, style = ''): string {
  return `<!doctype html><html lang="en" dir="ltr"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)} · vault-tools</title>
<style>${STYLE}${style}</style></head>
<body>${body}</body></html>`;
}

export function sendPage(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...PAGE_HEADERS, ...headers, 'Content-Length': Buffer.byteLength(html) });
  res.end(html);
}
