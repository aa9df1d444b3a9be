import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'ops_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (value > 0n) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(43, '0');
}

/** A new secret: `ops_` + 256 random bits in base62. */
export function generateApiKey(): string {
  return `${KEY_PREFIX}${base62(randomBytes(32))}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The part of a key that is safe to display. */
export function displayPrefix(key: string): string {
  return key.slice(0, 12);
}

/** How a key may appear in output and logs: its display prefix, marked as cut (`ops_ab12cd34…`). */
export function maskedKey(key: string): string {
  return `${displayPrefix(key)}…`;
}
