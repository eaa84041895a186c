/**
 * RFC 5322 messages (.eml) with MIME attachments, for mail the agent sends locally. Small on purpose:
 * UTF-8 text as base64, attachments as base64, non-ASCII headers as RFC 2047 encoded words, CRLF lines.
 */
import { randomBytes } from 'node:crypto';
import { dispositionFileName } from '../core/content-disposition.js';

export interface EmlMessage {
  from: { name?: string; address: string };
  to: string[];
  cc: string[];
  subject: string;
  body: string;
  date: Date;
  messageId: string;
  inReplyTo?: string;
  attachments: { fileName: string; mimeType: string; bytes: Buffer }[];
}

const CRLF = '\r\n';
const isAscii = (s: string) => /^[\x20-\x7e]*$/.test(s);
const encodeWord = (s: string) => (isAscii(s) ? s : `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`);
const base64Lines = (b: Buffer) => (b.toString('base64').match(/.{1,76}/g) ?? []).join(CRLF);
const quoted = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`;

function mailbox(m: { name?: string; address: string }): string {
  return m.name ? `${isAscii(m.name) ? quoted(m.name) : encodeWord(m.name)} <${m.address}>` : m.address;
}

export function buildEml(m: EmlMessage): Buffer {
  const headers = [
    `From: ${mailbox(m.from)}`,
    `To: ${m.to.join(', ')}`,
    ...(m.cc.length ? [`Cc: ${m.cc.join(', ')}`] : []),
    `Subject: ${encodeWord(m.subject.replace(/[\r\n]+/g, ' '))}`,
    `Date: ${m.date.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: ${m.messageId}`,
    ...(m.inReplyTo ? [`In-Reply-To: ${m.inReplyTo}`, `References: ${m.inReplyTo}`] : []),
    'MIME-Version: 1.0',
  ];
  const text = [
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    base64Lines(Buffer.from(m.body.replace(/\r?\n/g, CRLF), 'utf8')),
  ].join(CRLF);
  if (!m.attachments.length) return Buffer.from([...headers, text].join(CRLF) + CRLF, 'utf8');
  const boundary = `=_vault-tools_${randomBytes(12).toString('hex')}`;
  const parts = [
    text,
    ...m.attachments.map((a) =>
      [
        `Content-Type: ${a.mimeType}; name=${quoted(a.fileName.replace(/[^\x20-\x7e]/g, '_'))}`,
        'Content-Transfer-Encoding: base64',
        `Content-Disposition: attachment; ${dispositionFileName(a.fileName)}`,
        '',
        base64Lines(a.bytes),
      ].join(CRLF),
    ),
  ];
  const body = [
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    'This is a multi-part message in MIME format.',
    ...parts.map((p) => `--${boundary}${CRLF}${p}`),
    `--${boundary}--`,
    '',
  ];
  return Buffer.from([...headers, ...body].join(CRLF), 'utf8');
}
