import { Client } from 'pg';
import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '@app/migrations';
import type { EmbeddedConnection } from './embedded-postgres';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export type DatabaseBackend = 'native' | 'embedded';

export interface ConnectionSettings {
  databaseUrl?: string;
  embedded?: EmbeddedConnection;
  poolSize: number;
  statementTimeoutMs: number;
  applicationName?: string;
}

/**
 * A pg client that never emits an unhandled 'error'. When a backend is terminated
 * (`pg_terminate_backend`, a server restart), pg can emit 'error' on a checked-out client more
 * than once; TypeORM's listener is gone after the first, and an 'error' event with no listener
 * crashes the process. The pool and TypeORM still see the error through their own listeners; the
 * failed query is rejected and answered 503 by the HTTP layer.
 */
export class ResilientClient extends Client {
  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    this.on('error', () => undefined);
  }
}

/**
 * A pg client that waits for the embedded database to be available before connecting, so requests
 * arriving while its thread restarts (after an interrupted runaway statement) queue instead of failing.
 */
function embeddedClientClass(whenAvailable: () => Promise<void>): typeof ResilientClient {
  return class EmbeddedClient extends ResilientClient {
    override connect(): Promise<Client>;
    override connect(callback: (err: Error | null, client?: Client) => void): void;
    override connect(callback?: (err: Error | null, client?: Client) => void): Promise<Client> | void {
      const connected = whenAvailable().then(() => super.connect());
      if (!callback) return connected;
      connected.then(
        (client) => callback(null, client),
        (error: Error) => callback(error),
      );
    }
  };
}

/** One option set for both backends: only where the connection points differs. */
export function buildDataSourceOptions(
  settings: ConnectionSettings,
  entities: DataSourceOptions['entities'] = [],
): DataSourceOptions {
  const target = settings.databaseUrl
    ? { url: settings.databaseUrl }
    : {
        host: settings.embedded?.socketDir,
        port: settings.embedded?.port,
        username: settings.embedded?.user,
        database: settings.embedded?.database,
      };
  // PGlite's socket server interleaves the messages of concurrent connections outside transactions
  // (one connection's Parse can land between another's Parse and Bind), so the embedded pool has
  // exactly one connection. PGlite runs one statement at a time anyway, so little is lost.
  const poolSize = settings.databaseUrl ? settings.poolSize : 1;
  return {
    type: 'postgres',
    ...target,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    installExtensions: false,
    uuidExtension: 'pgcrypto',
    applicationName: settings.applicationName ?? 'ops-api',
    poolSize,
    extra: {
      max: poolSize,
      Client: settings.embedded ? embeddedClientClass(settings.embedded.whenAvailable) : ResilientClient,
      // Embedded: requests queue for the one connection behind long statements (e.g. the demo load).
      connectionTimeoutMillis: settings.databaseUrl ? 10_000 : 60_000,
      idleTimeoutMillis: 30_000,
      ...(settings.statementTimeoutMs > 0 && settings.databaseUrl
        ? { options: `-c statement_timeout=${settings.statementTimeoutMs}` }
        : {}),
    },
  };
}
