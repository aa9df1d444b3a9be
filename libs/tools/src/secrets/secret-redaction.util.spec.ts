import { base32Encode as base32, rot13 } from './secret-encodings.util';
import { REDACTED, redactSecret, SecretRedactor } from './secret-redaction.util';

const xor = (input: Buffer, key: number) => Buffer.from([...input].map((b) => b ^ key));

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
  ['rot13', rot13(SECRET)],
  ['reversed rot13', [...rot13(SECRET)].reverse().join('')],
  ['base32', base32(bytes)],
  ['base32 padded, lower case', `${base32(bytes).toLowerCase()}==`],
  ['base32 at an offset inside a longer blob', base32(Buffer.from(`key=${SECRET};`))],
  ['decimal byte codes', [...bytes].join(',')],
  ['decimal byte codes spaced', [...bytes].join(', ')],
  ['String.fromCharCode', `String.fromCharCode(${[...bytes].join(', ')})`],
  ['decimal byte codes separated by blanks', [...bytes].join(' ')],
  ['0x byte list', [...bytes].map((b) => `0x${b.toString(16)}`).join(', ')],
  ['\\x escapes', [...bytes].map((b) => `\\x${b.toString(16)}`).join('')],
  ['octal escapes', [...bytes].map((b) => `\\${b.toString(8)}`).join('')],
  ['xor 0x01, as text', xor(bytes, 0x01).toString('latin1')],
  ['xor 0x5a, hex', xor(bytes, 0x5a).toString('hex')],
  ['xor 0xff, base64', xor(bytes, 0xff).toString('base64')],
  [
    'xor 0x20 inside a longer blob, base64',
    Buffer.concat([Buffer.from('k='), xor(bytes, 0x20)]).toString('base64'),
  ],
  ['xor 0x7f, base32', base32(xor(bytes, 0x7f))],
  ['xor 0x13, decimal byte codes', [...xor(bytes, 0x13)].join(',')],
];

describe('secret redaction', () => {
  it.each(ENCODINGS)('removes the secret spelled as %s', (_label, encoded) => {
    const redacted = redactSecret({ echoed: `before ${encoded} after`, nested: [encoded] }, SECRET);
    const text = JSON.stringify(redacted);
    expect(text).toContain(REDACTED);
    expect(text).not.toContain(encoded);
    expect(text.toLowerCase()).not.toContain(SECRET.toLowerCase());
  });

  it.each([
    ['in halves', 11],
    ['at 45%', 10],
    ['at 60%', 13],
  ])('redacts a secret split in two fields %s', (_label, at) => {
    const out = redactSecret({ a: `first ${SECRET.slice(0, at)}`, b: [`then ${SECRET.slice(at)}!`] }, SECRET);
    expect(out).toEqual({ a: REDACTED, b: [REDACTED] });
  });

  it('redacts each part of a secret split in three, when each has 8 letters or digits', () => {
    const secret = 'Zq8-Lm3p_Vx72Kd9-Ty4Rw6Ns1Hb5Gc0';
    const parts = [secret.slice(0, 10), secret.slice(10, 21), secret.slice(21)];
    expect(redactSecret({ parts, other: 'unrelated words' }, secret)).toEqual({
      parts: [REDACTED, REDACTED, REDACTED],
      other: 'unrelated words',
    });
  });

  it('leaves numbers, dates and words that only look like encodings alone', () => {
    const redactor = new SecretRedactor(SECRET);
    for (const text of [
      'values 1, 2, 3, 5, 8, 13, 21, 34',
      'at 2026-11-26 12:00:00, 200 OK in 31 ms; 1 2 3 4 5 6 7',
      '0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06',
      'MZXW6YTBOI MFRGGZDFMZTQ====',
      'blog posts 0123456 and keys', // a piece of 7: shorter than MIN_PIECE_LENGTH
      Buffer.from('nothing to see here at all').toString('base64'),
    ])
      expect(redactor.redactText(text)).toBe(text);
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
