/**
 * What a target might make of a value placed in a URL path. Servers, proxies and frameworks between the
 * service and the endpoint differ in how often they percent-decode (once, twice, IIS's `%uHHHH`), in
 * Unicode folding (fullwidth `．．` and `／` become `..` and `/` under NFKC) and in path parameters
 * (`..;x` is `..` to Tomcat and Spring). A path value is judged by the most decoded spelling any of them
 * could reach, and refused when that spelling could climb or split segments.
 */

/** Decoding layers a value may carry; a value still changing after this many is refused. */
export const MAX_DECODE_ROUNDS = 4;

export type PathValueIssue = 'dot-segment' | 'encoded-separator' | 'invalid-encoding' | 'too-deep';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** One layer of percent-decoding (`%HH` runs as UTF-8, `%uHHHH`); null when the bytes are not UTF-8. */
function percentDecodeOnce(text: string): string | null {
  let invalid = false;
  const decoded = text
    .replace(/%u([0-9a-f]{4})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return STRICT_UTF8.decode(Buffer.from(run.replace(/%/g, ''), 'hex'));
      } catch {
        // Overlong forms like `%c0%ae` are `.` to some old decoders.
        invalid = true;
        return run;
      }
    });
  return invalid ? null : decoded;
}

/** The value after every decoding layer (percent, NFKC), or why there is no such spelling. */
export function decodePathValue(value: string): { decoded: string } | { issue: PathValueIssue } {
  let current = value.normalize('NFKC');
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    const next = percentDecodeOnce(current);
    if (next === null) return { issue: 'invalid-encoding' };
    const folded = next.normalize('NFKC');
    if (folded === current) return { decoded: current };
    current = folded;
  }
  return percentDecodeOnce(current)?.normalize('NFKC') === current
    ? { decoded: current }
    : { issue: 'too-deep' };
}

const SEPARATOR = /[/\\]/g;
/** `.`, `..` (and runs of dots), with trailing blanks or a `;` path parameter: what servers resolve as a dot segment. */
const DOT_LIKE_SEGMENT = /^\s*\.+[\s.\0]*(?:;.*)?$/u;

/**
 * Null when the value is safe in a path segment (it is percent-encoded when sent), else why not. A raw
 * `/` stays allowed (sent as `%2F`, as GitLab-style ids need), but a separator that only appears after
 * decoding or folding (`%2F`, `%5C`, `／`, `＼`) is refused: no target needs one, and one that decodes
 * before routing would see an extra segment.
 */
export function pathValueIssue(value: string): PathValueIssue | null {
  const result = decodePathValue(value);
  if ('issue' in result) return result.issue;
  const { decoded } = result;
  const segments = [value, decoded].flatMap((text) => text.split(SEPARATOR));
  if (segments.some((segment) => DOT_LIKE_SEGMENT.test(segment))) return 'dot-segment';
  const separators = (text: string) => text.match(SEPARATOR)?.length ?? 0;
  if (separators(decoded) > separators(value)) return 'encoded-separator';
  return null;
}

export const PATH_VALUE_MESSAGES: Record<PathValueIssue, string> = {
  'dot-segment':
    'A URL path value may not be a dot segment (`.`, `..`, `..;`) in any spelling (percent-encoded, fullwidth).',
  'encoded-separator':
    'A URL path value may not carry an encoded or look-alike slash or backslash (`%2F`, `%5C`, `／`, `＼`).',
  'invalid-encoding': 'A URL path value may not carry percent-encoded bytes that are not UTF-8.',
  'too-deep': `A URL path value may not be percent-encoded more than ${MAX_DECODE_ROUNDS} times over.`,
};
