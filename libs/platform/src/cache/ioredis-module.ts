/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, see below */
import type * as IORedis from 'ioredis';

let loaded: typeof IORedis | undefined;

/**
 * ioredis, loaded when a Redis client is first made (REDIS_URL set) rather than with the server's
 * modules: it builds its command methods as it loads, CPU that every start paid before readiness
 * although the default (embedded) setup has no Redis. Types come from `import type`.
 */
export const ioredis = (): typeof IORedis => (loaded ??= require('ioredis') as typeof IORedis);
