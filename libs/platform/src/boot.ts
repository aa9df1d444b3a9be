import path from 'node:path';
import type { PlatformConfig } from './platform.config';
import { EmbeddedPostgres, embeddedMaxConnections } from './database/embedded-postgres';

/*
 * The platform's start-up entry (`@app/platform/boot`): what a server's main() uses before it loads the
 * application's modules. It stays light (the logger, the embedded database's early start; the
 * environment's validation is `@app/platform/config`) so that the database opens on its own thread
 * while the rest loads.
 */
export { JsonLogger } from './logging/json-logger';

/**
 * Starts the embedded database now when the environment uses it (no DATABASE_URL); the DatabaseModule
 * takes it over when the application is created from the same environment.
 */
export function startDatabaseEarly(env: PlatformConfig): void {
  if (env.DATABASE_URL) return;
  EmbeddedPostgres.startEarly(path.resolve(env.DATA_DIR), embeddedMaxConnections(env.DATABASE_POOL_SIZE));
}
