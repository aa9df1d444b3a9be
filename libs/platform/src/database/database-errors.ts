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

/** SQLSTATEs that mean the server or the connection went away, not that the statement was wrong. */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
const UNAVAILABLE_MESSAGE =
  /timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|terminating connection due to administrator command|the database system is (starting up|shutting down|in recovery mode)|ECONNREFUSED|ECONNRESET|Query runner already released|connection provided by a query runner was already released/;

/**
 * The database could not be reached or dropped the connection (refused, reset, terminated by an
 * admin or a restart, pool wait timed out): a transient outage, answered 503 with Retry-After.
 * `QueryRunnerAlreadyReleasedError` and `QueryRunnerProviderAlreadyReleasedError` belong here: TypeORM
 * releases a runner whose connection died, and the operation's next statement (through the runner, or
 * through a transaction's entity manager) then finds it released.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const state = sqlState(error);
  if (state && (state.startsWith('08') || UNAVAILABLE_STATES.has(state))) return true;
  const shape = error as DriverErrorShape & { name?: unknown };
  const errno = shape.driverError?.code ?? shape.code;
  if (typeof errno === 'string' && UNAVAILABLE_ERRNOS.has(errno)) return true;
  if (
    shape.name === 'QueryRunnerAlreadyReleasedError' ||
    shape.name === 'QueryRunnerProviderAlreadyReleasedError'
  ) {
    return true;
  }
  return typeof shape.message === 'string' && UNAVAILABLE_MESSAGE.test(shape.message);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pause before the one retry: long enough for the pool to drop dead clients and reconnect. */
export const READ_RETRY_DELAY_MS = 100;

/**
 * Runs a read, and once more after a short pause if the database was unavailable. Only for work
 * that is safe to repeat (it changes nothing); a second failure is thrown (and answered 503).
 */
export async function retryReadOnce<T>(read: () => Promise<T>, delayMs = READ_RETRY_DELAY_MS): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    await sleep(delayMs + Math.random() * delayMs);
    return read();
  }
}
