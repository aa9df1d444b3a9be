import { REDACTED, redactSecret, SecretRedactor } from './secret-redaction.util';

const SECRET = 'blog-Key_0123456789xyz';
const bytes = Buffer.from(SECRET, 'utf8');
const reversed = [...SECRET].reverse().join('');

/** Each spelling an attacker-controlled endpoint might echo the secret in. */
const ENCODINGS: Array<[string, string]> = [
  ['raw', SECRET],
  ['base64', bytes.toString('base64')],
  ['base64 without padding', bytes.toString('base64').replace(/=+$/, '')],
  ['base64url', bytes.toString('base64url')],
  ['base64 at an offset inside a longer blob', Buffer.from(`k=${SECRET};`).toString('base64')],
  ['base64 at another offset', Buffer.from(`key:${SECRET}`).toString('base64')],
  ['hex', bytes.toString('hex')],
  ['HEX', bytes.toString('hex').toUpperCase()],
  ['URL-encoded', encodeURIComponent(`${SECRET}`)],
  ['fully percent-encoded', [...bytes].map((b) => `%${b.toString(16).toUpperCase()}`).join('')],
  ['reversed', reversed],
  ['reversed base64', [...bytes.toString('base64')].reverse().join('')],
  ['spaced out', [...SECRET].join(' ')],
  ['separated by dashes', [...SECRET].join('-')],
  ['newlines between characters', [...SECRET].join('\n')],
  ['lowercase', SECRET.toLowerCase()],
  ['uppercase', SECRET.toUpperCase()],
  ['JSON unicode escapes', [...SECRET].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join('')],
  ['HTML entities', [...SECRET].map((c) => `&#${c.charCodeAt(0)};`).join('')],
  ['uppercase base64 of hex', Buffer.from(bytes.toString('hex')).toString('base64')],
  ['wrapped in parentheses per character', [...SECRET].map((c) => `(${c})`).join('')],
];

describe('secret redaction', () => {
  it.each(ENCODINGS)('removes the secret spelled as %s', (_label, encoded) => {
    const redacted = redactSecret({ echoed: `before ${encoded} after`, nested: [encoded] }, SECRET);
    const text = JSON.stringify(redacted);
    expect(text).toContain(REDACTED);
    expect(text).not.toContain(encoded);
    expect(text.toLowerCase()).not.toContain(SECRET.toLowerCase());
  });

  it('keeps text around a plain occurrence and leaves unrelated text alone', () => {
    const redactor = new SecretRedactor(SECRET);
    expect(redactor.redactText(`key=${SECRET}&x=1`)).toBe(`key=${REDACTED}&x=1`);
    expect(redactor.redactText('Kafka lag runbook, 42 posts')).toBe('Kafka lag runbook, 42 posts');
    expect(redactor.redact({ [SECRET]: 1, n: 2, ok: true })).toEqual({ [REDACTED]: 1, n: 2, ok: true });
  });

  it('redacts a secret with regular-expression characters and non-ASCII text', () => {
    const secret = 'p@$$(w0rd)+é€*';
    const out = JSON.stringify(
      redactSecret([secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')], secret),
    );
    expect(out).not.toContain('w0rd');
    expect(out).not.toContain(Buffer.from(secret).toString('base64'));
  });

  it('is a no-op without a secret', () => {
    expect(redactSecret({ a: 'x' }, undefined)).toEqual({ a: 'x' });
  });
});
