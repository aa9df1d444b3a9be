import { base32Decode, BYTE_CODE_RUN, decodeByteCodes, rot13, xorDeltas } from './secret-encodings.util';

export const REDACTED = '[REDACTED]';

/** Characters a tool may put between the characters of a secret (spacing it out, grouping it). */
const SEPARATOR_CHAR = /[\s\-_.:,;|/\\'"+*]/;
/** Secrets shorter than this are matched only in their plain spellings (fewer false alarms). */
const MIN_FUZZY_LENGTH = 6;
/**
 * Above this size a field that looks like it holds the secret is replaced whole rather than searched
 * spelling by spelling (bounds the work an endpoint can cause by echoing the secret in a huge body).
 */
const MAX_PRECISE_CHARS = 64 * 1024;
/** The same bound for secrets that skip the linear pre-check (non-ASCII): every field goes through the regex. */
const MAX_UNCHECKED_CHARS = 8 * 1024;
/** A piece of the secret this long (letters and digits) in a field redacts the field: splits into longer parts are found. */
const MIN_PIECE_LENGTH = 8;
/** Pieces checked per secret: a long secret's windows are strided (its parts must then be a little longer). */
const MAX_PIECES = 64;
/** Single-byte xor is looked for only in secrets this long (the shortest run of deltas is one byte less). */
const MIN_XOR_BYTES = 8;
/** Characters skipped to try each alignment of a base32 run (8 characters make 5 bytes). */
const BASE32_ALIGNMENTS = [0, 1, 2, 3, 4, 5, 6, 7];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const reverse = (text: string) => [...text].reverse().join('');

/** One character in any spelling a URL, HTML, JSON or C string could give it. */
function charPattern(ch: string): string {
  const code = ch.codePointAt(0)!;
  const hex = code.toString(16).padStart(2, '0');
  const spellings = [escapeRegExp(ch)];
  if (code < 0x80) {
    spellings.push(`%${hex}`, `&#0*${code};`, `&#x0*${hex};`, `\\\\x${hex}`, `\\\\u00${hex}`);
    if (ch === ' ') spellings.push('\\+');
  } else {
    spellings.push([...Buffer.from(ch, 'utf8')].map((byte) => `%${byte.toString(16)}`).join(''));
    spellings.push(`&#0*${code};`, `&#x0*${hex};`, `\\\\u${hex.padStart(4, '0')}`);
  }
  return spellings.length === 1 ? spellings[0] : `(?:${spellings.join('|')})`;
}

/**
 * With separators, the secret's own separator characters become optional separators: a separator
 * class next to a literal that is itself a separator makes the regex backtrack quadratically.
 */
const SEPARATOR_CHARS = ' \t\n\r-_.:,;|/\\\'"+*';
/** Any run of separators, also escaped (`%2D`, `&#45;`, `\u002d`): the secret's own separators are among them. */
const SEPARATORS = `(?:[\\s\\-_.:,;|/\\\\'"+*]|${[...SEPARATOR_CHARS]
  .map((ch) => {
    const code = ch.charCodeAt(0);
    const hex = code.toString(16).padStart(2, '0');
    return `%${hex}|&#0*${code};|&#x0*${hex};|\\\\x${hex}|\\\\u00${hex}`;
  })
  .join('|')})*`;

function textPattern(text: string, separators: boolean): string {
  if (!separators) return [...text].map(charPattern).join('');
  return [...text]
    .filter((ch) => !SEPARATOR_CHAR.test(ch))
    .map(charPattern)
    .join(SEPARATORS);
}

/** Decodes per-character escapes (%HH, &#N;, &#xH;, \xHH, \uHHHH) so a cheap check sees the characters. */
function unescapeChars(text: string): string {
  return text
    .replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/&#x([0-9a-f]{1,6});/gi, (_m, h: string) =>
      String.fromCodePoint(Math.min(parseInt(h, 16), 0x10ffff)),
    )
    .replace(/&#(\d{1,7});/g, (_m, d: string) => String.fromCodePoint(Math.min(Number(d), 0x10ffff)))
    .replace(/\\(?:x([0-9a-f]{2})|u([0-9a-f]{4}))/gi, (_m, x?: string, u?: string) =>
      String.fromCharCode(parseInt(x ?? u ?? '0', 16)),
    );
}

/**
 * The base64 characters that encode the secret whatever its byte offset in a longer encoded text
 * (offsets 0, 1 and 2), in both the standard and the url-safe alphabet, without padding.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
    const encoded = padded.toString('base64').replace(/=+$/, '');
    // Characters touched by the leading zero bytes or by the unfinished last group differ in context.
    const start = Math.ceil((offset * 4) / 3);
    const end = Math.floor(((offset + bytes.length) * 4) / 3);
    const core = encoded.slice(start, end);
    if (core.length >= 4) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

/**
 * Spellings of the secret a response might carry: raw, base64/base64url, hex, each also reversed. They
 * make one regex, whose compilation grows faster than its size: rot13 and base32 are found by
 * transforming the text instead (`redactRot13`, `redactEncodedRuns`).
 */
function variants(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const list = [
    secret,
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
    bytes.toString('hex'),
  ];
  if (secret.length >= MIN_FUZZY_LENGTH) list.push(...base64Cores(secret));
  return [...new Set([...list, ...list.map(reverse)])].filter((v) => v.length > 0);
}

/** Letters and digits only, lowercased: what is left of a secret after any separators or case games. */
const skeleton = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/**
 * Every window of MIN_PIECE_LENGTH letters and digits of a secret's skeleton (strided past MAX_PIECES
 * windows): a secret split into two (or more) fields is found through each part of at least that length.
 * Only for secrets of at least two pieces' length, so a piece is at most half the secret.
 */
function pieces(secretSkeleton: string): string[] {
  if (secretSkeleton.length < 2 * MIN_PIECE_LENGTH) return [];
  const windows = secretSkeleton.length - MIN_PIECE_LENGTH + 1;
  const stride = Math.ceil(windows / MAX_PIECES);
  const out: string[] = [];
  for (let start = 0; start < windows; start += stride)
    out.push(secretSkeleton.slice(start, start + MIN_PIECE_LENGTH));
  return out;
}

/** Finds the secret in the usual encodings (case-insensitive, separators allowed between characters). */
export class SecretRedactor {
  private readonly pattern: RegExp;
  private readonly skeletons: string[];
  /** Non-ASCII secrets skip the cheap pre-check (percent-decoding byte by byte would not match them). */
  private readonly precheck: boolean;
  /** The secret's xor deltas, to find it xored with any single-byte key in one linear search. */
  private readonly secretBytes: Buffer;
  private readonly deltas: Buffer | undefined;

  constructor(secret: string) {
    this.precheck = /^[\x20-\x7e]*$/.test(secret) && secret.length >= MIN_FUZZY_LENGTH;
    const fuzzy = secret.length >= MIN_FUZZY_LENGTH;
    const alternatives = variants(secret).map((v) => textPattern(v, fuzzy));
    // Longest first, so a long encoding is replaced whole rather than a part of it.
    alternatives.sort((a, b) => b.length - a.length);
    this.pattern = new RegExp(alternatives.join('|'), 'giu');
    // A field holding a piece of the secret (a split in two) is redacted whole by the skeleton rule.
    this.skeletons = fuzzy
      ? [
          ...new Set([
            ...variants(secret).map(skeleton),
            rot13(skeleton(secret)),
            reverse(rot13(skeleton(secret))),
            ...pieces(skeleton(secret)),
          ]),
        ].filter((s) => s.length >= MIN_FUZZY_LENGTH)
      : [];
    this.secretBytes = Buffer.from(secret, 'utf8');
    this.deltas = this.secretBytes.length >= MIN_XOR_BYTES ? xorDeltas(this.secretBytes) : undefined;
  }

  redactText(text: string): string {
    // Most fields hold nothing like the secret: a linear check first; only encoded runs need a look.
    if (this.precheck && !this.mayContain(text)) return this.redactDerived(text);
    if (text.length > (this.precheck ? MAX_PRECISE_CHARS : MAX_UNCHECKED_CHARS)) return REDACTED;
    let out = this.redactRot13(text.replace(this.pattern, REDACTED));
    out = this.redactDerived(out);
    // If in doubt, the whole field: whatever spacing or punctuation is left, the characters are the secret's.
    const rest = skeleton(out.split(REDACTED).join(' '));
    if (this.skeletons.some((s) => rest.includes(s))) return REDACTED;
    return out;
  }

  /** rot13 is its own inverse and keeps every offset: the secret's spellings found in rot13(text) are replaced in place. */
  private redactRot13(text: string): string {
    const turned = rot13(text);
    let out = '';
    let from = 0;
    for (const match of turned.matchAll(this.pattern)) {
      // The marker itself turns into '[ERQNPGRQ]': never a match worth replacing.
      if (match[0].length === 0 || match[0] === rot13(REDACTED)) continue;
      out += `${text.slice(from, match.index)}${REDACTED}`;
      from = match.index + match[0].length;
    }
    return from === 0 ? text : out + text.slice(from);
  }

  /** What only decoding shows: encoded runs, byte-code lists, then the secret xored with a one-byte key. */
  private redactDerived(text: string): string {
    return this.redactXored(this.redactByteCodes(this.redactEncodedRuns(text)));
  }

  /** Replaces base64/base64url/base32/hex runs whose decoded bytes hold the secret (any spelling, or xored). */
  private redactEncodedRuns(text: string): string {
    return text.replace(/[A-Za-z0-9+/_-]{8,}={0,6}/g, (run) => {
      const decoded = [
        Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64'),
        /^[0-9a-fA-F]+$/.test(run) && run.length % 2 === 0 ? Buffer.from(run, 'hex') : null,
        // Every alignment of the 5-bit groups: a run cut out of a longer base32 text starts anywhere.
        ...BASE32_ALIGNMENTS.map((skip) => (run.length - skip >= 8 ? base32Decode(run.slice(skip)) : null)),
      ];
      return decoded.some((bytes) => bytes && this.holds(bytes)) ? REDACTED : run;
    });
  }

  /** Replaces lists of byte codes (`115,101,99`, `0x73 0x65`, `\163\145`) that spell the secret. */
  private redactByteCodes(text: string): string {
    if (!/\d/.test(text)) return text;
    return text.replace(BYTE_CODE_RUN, (run) => {
      const bytes = decodeByteCodes(run);
      return bytes && this.holds(bytes) ? REDACTED : run;
    });
  }

  /** The secret xored with one byte, in the text itself (each character a byte, as JSON's `\u00XX` gives them). */
  private redactXored(text: string): string {
    if (!this.deltas || text.length < this.secretBytes.length) return text;
    // Text with characters past U+00FF: its UTF-8 bytes, and the whole field if they hold it.
    // eslint-disable-next-line no-control-regex
    if (/[^\x00-\xff]/.test(text)) return this.xoredAt(Buffer.from(text, 'utf8')) >= 0 ? REDACTED : text;
    const deltas = xorDeltas(Buffer.from(text, 'latin1'));
    let out = '';
    let from = 0;
    for (let at = deltas.indexOf(this.deltas); at >= 0; at = deltas.indexOf(this.deltas, from)) {
      out += `${text.slice(from, at)}${REDACTED}`;
      from = at + this.secretBytes.length;
    }
    return from === 0 ? text : out + text.slice(from);
  }

  /** Where the secret xored with any single-byte key starts in `bytes` (key 0 included), else -1. */
  private xoredAt(bytes: Buffer): number {
    if (!this.deltas || bytes.length < this.secretBytes.length) return -1;
    return xorDeltas(bytes).indexOf(this.deltas);
  }

  private holds(bytes: Buffer): boolean {
    return this.contains(bytes.toString('utf8')) || this.xoredAt(bytes) >= 0;
  }

  /** Whether the letters and digits of some spelling of the secret appear in the text (after unescaping). */
  private mayContain(text: string): boolean {
    const flat = skeleton(unescapeChars(text));
    return this.skeletons.some((s) => flat.includes(s));
  }

  private contains(text: string): boolean {
    if (this.precheck) return this.mayContain(text);
    if (text.length > MAX_UNCHECKED_CHARS) return true;
    this.pattern.lastIndex = 0;
    const found = this.pattern.test(text);
    this.pattern.lastIndex = 0;
    return found || (this.skeletons.length > 0 && this.skeletons.some((s) => skeleton(text).includes(s)));
  }

  /** Redacts every string (and object key) of a JSON value. */
  redact<T>(value: T): T {
    const walk = (item: unknown): unknown => {
      if (typeof item === 'string') return this.redactText(item);
      if (Array.isArray(item)) return item.map(walk);
      if (item && typeof item === 'object') {
        return Object.fromEntries(
          Object.entries(item).map(([key, inner]) => [this.redactText(key), walk(inner)]),
        );
      }
      return item;
    };
    return walk(value) as T;
  }
}

/** Replaces the secret in every string of a JSON value, in any common encoding (responses may echo it). */
export function redactSecret<T>(value: T, secret: string | undefined): T {
  return secret ? new SecretRedactor(secret).redact(value) : value;
}
