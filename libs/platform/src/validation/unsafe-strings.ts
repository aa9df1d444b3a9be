import { ErrorKind, PlatformException, PlatformExceptionCode } from '../errors/app.exception';
import { MAX_JSON_DEPTH } from './input-limits';
import { payloadTooDeep } from './json-depth';

/**
 * NUL (PostgreSQL text cannot hold it: 22021) and UTF-16 surrogates without their pair (they
 * cannot be encoded as UTF-8, so they would be silently replaced or fail in the database).
 */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSAFE_CHARACTER = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const MAX_REPORTED_FIELDS = 20;

export interface UnsafeStringField {
  field: string;
  errors: string[];
}

function describe(value: string): string {
  return value.includes('\u0000')
    ? 'contains a NUL character (U+0000)'
    : 'contains an unpaired UTF-16 surrogate';
}

function isOpaque(value: object): boolean {
  return ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof Date;
}

/**
 * Every string (and object key) in `value` that holds NUL or a lone surrogate, with its dotted
 * path. Walks with an explicit stack, so depth cannot overflow the call stack; a value nested
 * deeper than `maxDepth` is refused as too deep. Binary buffers are not text and are skipped.
 */
export function findUnsafeStrings(value: unknown, root = '', maxDepth = MAX_JSON_DEPTH): UnsafeStringField[] {
  const found: UnsafeStringField[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  const seen = new Set<object>();
  while (stack.length > 0 && found.length < MAX_REPORTED_FIELDS) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      if (UNSAFE_CHARACTER.test(item.value)) found.push({ field: item.path, errors: [describe(item.value)] });
      continue;
    }
    if (typeof item.value !== 'object' || item.value === null || isOpaque(item.value)) continue;
    if (seen.has(item.value)) continue;
    seen.add(item.value);
    if (item.depth >= maxDepth) throw payloadTooDeep(maxDepth);
    for (const [key, child] of Object.entries(item.value)) {
      const path = item.path ? `${item.path}.${key}` : key;
      if (UNSAFE_CHARACTER.test(key)) found.push({ field: path, errors: [`key ${describe(key)}`] });
      stack.push({ value: child, path, depth: item.depth + 1 });
    }
  }
  return found;
}

/** Throws a 400 naming every field that holds NUL or a lone surrogate. */
export function assertSafeStrings(value: unknown, root = ''): void {
  const fields = findUnsafeStrings(value, root);
  if (fields.length === 0) return;
  throw new PlatformException(
    PlatformExceptionCode.INVALID_CHARACTERS,
    ErrorKind.INVALID_INPUT,
    `Invalid characters in: ${fields.map((f) => f.field || '(value)').join(', ')}`,
    { fields },
  );
}
