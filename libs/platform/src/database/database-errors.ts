/** Classifies errors raised by the PostgreSQL driver (directly or wrapped in TypeORM's QueryFailedError). */

interface DriverErrorShape {
  code?: unknown;
  driverError?: { code?: unknown };
  message?: unknown;
}

/** The SQLSTATE of a driver error, if it carries one (`QueryFailedError` copies it, or keeps `driverError`). */
export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const shape = error as DriverErrorShape;
  const code = shape.driverError?.code ?? shape.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

const DATA_EXCEPTION_MESSAGES: Record<string, string> = {
  '22001': 'A value is too long for its field',
  '22003': 'A number is out of range',
  '22021': 'A value holds a character the database cannot store',
  '22P02': 'A value has the wrong format',
  '22P05': 'A value holds a character the database cannot store',
  '22007': 'A date or time has the wrong format',
  '22008': 'A date or time is out of range',
  '22025': 'A search pattern is malformed',
};

/**
 * A PostgreSQL data exception (SQLSTATE class 22: bad bytes, out-of-range numbers, malformed
 * text): the request's input was wrong, so it is a 400 with a message that names no internals.
 */
export function invalidDataMessage(error: unknown): string | undefined {
  const state = sqlState(error);
  if (!state?.startsWith('22')) return undefined;
  return DATA_EXCEPTION_MESSAGES[state] ?? 'A value is not valid for its field';
}
