import { ErrorKind, PlatformException, PlatformExceptionCode } from '../errors/app.exception';
import { MAX_JSON_DEPTH } from './input-limits';

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The deepest array/object nesting in raw JSON text, found by one scan without recursion, so
 * that a body nested 100,000 deep is refused before `JSON.parse` and the validators (which
 * recurse) ever see it. Stops counting once `limit` is passed. Malformed text is left to the parser.
 */
export function jsonNestingDepth(raw: Uint8Array, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

export function payloadTooDeep(maxDepth = MAX_JSON_DEPTH): PlatformException {
  return new PlatformException(
    PlatformExceptionCode.PAYLOAD_TOO_DEEP,
    ErrorKind.INVALID_INPUT,
    `JSON is nested more than ${maxDepth} levels deep`,
    { max_depth: maxDepth },
  );
}

/** A body-parser `verify` hook: refuses JSON nested deeper than `maxDepth` before it is parsed. */
export function verifyJsonDepth(maxDepth = MAX_JSON_DEPTH) {
  return (_req: unknown, _res: unknown, raw: Buffer): void => {
    if (jsonNestingDepth(raw, maxDepth) > maxDepth) throw payloadTooDeep(maxDepth);
  };
}
