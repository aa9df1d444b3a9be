/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, see below */
import type * as IORedis from 'ioredis';

let loaded: typeof IORedis | undefined;

/**
 * ioredis, loaded when a Redis client is first made (REDIS_URL set) rather than with the server's
 * modules: it builds its command methods as it loads, CPU that every start paid before readiness
 * although the default (embedded) setup has no Redis. Types come from `import type`.
 */
export const ioredis = (): typeof IORedis => (loaded ??= require('ioredis') as typeof IORedis);

/**
 * For every client's `disconnectTimeout`. ioredis's disconnect() ends the socket and arms a timer (2 s
 * by default) that destroys it unless its 'close' event clears the timer first; a socket that had
 * closed already (Redis unreachable, the client between reconnect attempts) never emits 'close' again,
 * so the timer held a shutting-down process open for its whole length. 0 destroys the socket on the
 * next tick instead of waiting for Redis to close its end: disconnect() is for shutdown and drops
 * replies still pending anyway (RedisCacheStore quits gracefully when it is connected).
 */
export const REDIS_DISCONNECT_TIMEOUT_MS = 0;
