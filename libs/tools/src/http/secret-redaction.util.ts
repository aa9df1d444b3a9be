export const REDACTED = '[REDACTED]';

/** Characters a tool may put between the characters of a secret (spacing it out, grouping it). */
const SEPARATORS = String.raw`[\s\-_.:,;|/\\'"+*]*`;
/** Secrets shorter than this are matched only in their plain spellings (fewer false alarms). */
const MIN_FUZZY_LENGTH = 6;

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

function textPattern(text: string, separators: boolean): string {
  const sep = separators ? SEPARATORS : '';
  return [...text].map(charPattern).join(sep);
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

  constructor(secret: string) {
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

  private contains(text: string): boolean {
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
