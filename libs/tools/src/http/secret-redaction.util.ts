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

/** Spellings of the secret a response might carry: raw, base64/base64url, hex, each also reversed. */
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

/** Finds the secret in the usual encodings (case-insensitive, separators allowed between characters). */
export class SecretRedactor {
  private readonly pattern: RegExp;
  private readonly skeletons: string[];
  /** Non-ASCII secrets skip the cheap pre-check (percent-decoding byte by byte would not match them). */
  private readonly precheck: boolean;

  constructor(secret: string) {
    this.precheck = /^[\x20-\x7e]*$/.test(secret) && secret.length >= MIN_FUZZY_LENGTH;
    const fuzzy = secret.length >= MIN_FUZZY_LENGTH;
    const alternatives = variants(secret).map((v) => textPattern(v, fuzzy));
    // Longest first, so a long encoding is replaced whole rather than a part of it.
    alternatives.sort((a, b) => b.length - a.length);
    this.pattern = new RegExp(alternatives.join('|'), 'giu');
    this.skeletons = fuzzy
      ? [...new Set(variants(secret).map(skeleton))].filter((s) => s.length >= MIN_FUZZY_LENGTH)
      : [];
  }

  redactText(text: string): string {
    // Most fields hold nothing like the secret: a linear check first; only encoded runs need a look.
    if (this.precheck && !this.mayContain(text)) return this.redactEncodedRuns(text);
    if (text.length > (this.precheck ? MAX_PRECISE_CHARS : MAX_UNCHECKED_CHARS)) return REDACTED;
    let out = text.replace(this.pattern, REDACTED);
    out = this.redactEncodedRuns(out);
    // If in doubt, the whole field: whatever spacing or punctuation is left, the characters are the secret's.
    const rest = skeleton(out.split(REDACTED).join(' '));
    if (this.skeletons.some((s) => rest.includes(s))) return REDACTED;
    return out;
  }

  /** Replaces base64/base64url/hex runs whose decoded text contains the secret in any of its spellings. */
  private redactEncodedRuns(text: string): string {
    return text.replace(/[A-Za-z0-9+/_-]{8,}={0,2}/g, (run) => {
      const decoded = [
        Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'),
        /^[0-9a-fA-F]+$/.test(run) && run.length % 2 === 0 ? Buffer.from(run, 'hex').toString('utf8') : '',
      ];
      return decoded.some((d) => d && this.contains(d)) ? REDACTED : run;
    });
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
