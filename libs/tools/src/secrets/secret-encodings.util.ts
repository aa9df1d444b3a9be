/** Reversible encodings a tool's target might echo a secret in, beyond the per-character escapes. */

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, upper case, without padding. */
export function base32Encode(bytes: Buffer): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** Decodes base32 (either case, padding ignored); null when the text is not base32. */
export function base32Decode(text: string): Buffer | null {
  const body = text.replace(/=+$/, '').toUpperCase();
  if (!/^[A-Z2-7]+$/.test(body)) return null;
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const ch of body) {
    buffer = (buffer << 5) | BASE32_ALPHABET.indexOf(ch);
    bits += 5;
    if (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 255);
      bits -= 8;
    }
    buffer &= (1 << bits) - 1;
  }
  return Buffer.from(out);
}

export const rot13 = (text: string) =>
  text.replace(/[a-z]/gi, (ch) => {
    const base = ch <= 'Z' ? 65 : 97;
    return String.fromCharCode(((ch.charCodeAt(0) - base + 13) % 26) + base);
  });

/**
 * Runs of byte codes: decimal lists (`115,101,99` or `115 101 99`, as `String.fromCharCode` or a byte
 * array prints them), `0x73, 0x65` lists and octal escapes (`\163\145`). At least six codes, so dates,
 * versions and ordinary number lists are rarely touched (and only decoded, never redacted, unless they
 * spell the secret).
 */
export const BYTE_CODE_RUN =
  /(?<![\d.])(?:\d{1,3}[ \t]*[,;][ \t]*|\d{1,3}[ \t]+){5,}\d{1,3}(?![\d.])|(?:0x[0-9a-f]{1,2}[\s,;]*){6,}|(?:\\[0-7]{1,3}){6,}/gi;

/** The bytes a byte-code run spells; null when a code is not a byte. */
export function decodeByteCodes(run: string): Buffer | null {
  const codes = /\\[0-7]/.test(run)
    ? [...run.matchAll(/\\([0-7]{1,3})/g)].map((m) => parseInt(m[1], 8))
    : /0x/i.test(run)
      ? [...run.matchAll(/0x([0-9a-f]{1,2})/gi)].map((m) => parseInt(m[1], 16))
      : [...run.matchAll(/\d{1,3}/g)].map((m) => Number(m[0]));
  return codes.every((code) => code <= 255) ? Buffer.from(codes) : null;
}

/** `bytes[i] ^ bytes[i + 1]`: unchanged when every byte is xored with the same key. */
export function xorDeltas(bytes: Buffer): Buffer {
  const deltas = Buffer.alloc(Math.max(0, bytes.length - 1));
  for (let i = 0; i < deltas.length; i++) deltas[i] = bytes[i] ^ bytes[i + 1];
  return deltas;
}
