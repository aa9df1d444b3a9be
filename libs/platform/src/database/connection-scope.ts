import type { PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { currentDatabaseScope } from './database-scope';
import { attachScheduler, EmbeddedScheduler } from './embedded-scheduler';

type ObtainConnection = () => Promise<[PoolClient, (error?: unknown) => void]>;

interface ScopedClient extends PoolClient {
  opsTenant?: string;
}

/** Where each scope's connections come from (see applyConnectionScope). */
export interface ConnectionScopeOptions {
  /**
   * Native: the pool of the BYPASSRLS role (`ops_system`) that `runAsSystem` work runs on; the
   * application's pool, whose role has no bypass, never serves it. Absent: the application's pool
   * serves every scope (its role must then bypass row-level security itself, e.g. a superuser).
   */
  system?: DataSource | null;
  /**
   * Embedded: the role each connection switches to, per scope. PGlite has a single superuser session,
   * so a role switch is all there is (SECURITY.md says what that does and does not hold).
   */
  roles?: { app: string; system: string } | null;
  /**
   * Embedded: every checkout of the application's connection takes a lease from the scheduler first
   * (foreground before background work), and gives it back with the connection.
   */
  scheduler?: EmbeddedScheduler | null;
}

/**
 * Routes every connection TypeORM takes from the pool by the row-level-security scope of the current
 * async context: system work to the system pool, everything else to the application's pool with the
 * tenant (`app.tenant_id`) set in one round trip, skipped when the connection already carries that
 * tenant. A query runner keeps its connection, so a transaction keeps the scope it started with.
 *
 * No setting decides what a connection may see beyond the tenant: the policies trust no bypass flag,
 * and which role (hence BYPASSRLS or not) a connection has is fixed at login on the native server.
 * PGlite has one session shared by every socket connection (another pool, e.g. the migrations', can
 * change its settings), so on embedded nothing is cached: role and tenant are set on every checkout.
 */
export function applyConnectionScope(dataSource: DataSource, options: ConnectionScopeOptions = {}): void {
  const obtain = options.scheduler
    ? scheduled(obtainerOf(dataSource), options.scheduler)
    : obtainerOf(dataSource);
  if (options.scheduler) attachScheduler(dataSource, options.scheduler);
  const obtainSystem = options.system ? obtainerOf(options.system) : null;
  const roles = options.roles ?? null;
  const driver = dataSource.driver as PostgresDriver & { obtainMasterConnection: ObtainConnection };
  driver.obtainMasterConnection = async () => {
    const scope = currentDatabaseScope();
    if (scope.bypass && obtainSystem) return obtainSystem();
    const [client, release] = (await obtain()) as [ScopedClient, (error?: unknown) => void];
    const tenant = scope.bypass ? '' : (scope.tenantId ?? '');
    if (!roles && client.opsTenant === tenant) return [client, release];
    try {
      client.opsTenant = undefined;
      if (roles)
        await client.query(`SELECT set_config('role', $2, false), set_config('app.tenant_id', $1, false)`, [
          tenant,
          scope.bypass ? roles.system : roles.app,
        ]);
      else await client.query(`SELECT set_config('app.tenant_id', $1, false)`, [tenant]);
      client.opsTenant = tenant;
    } catch (error) {
      release(error);
      throw error;
    }
    return [client, release];
  };
}

/** Checkouts in the scheduler's order: the lease is held as long as the connection is. */
function scheduled(obtain: ObtainConnection, scheduler: EmbeddedScheduler): ObtainConnection {
  return async () => {
    const lease = await scheduler.acquire();
    let obtained: [PoolClient, (error?: unknown) => void];
    try {
      obtained = await obtain();
    } catch (error) {
      lease();
      throw error;
    }
    const [client, release] = obtained;
    return [
      client,
      (error?: unknown) => {
        try {
          release(error);
        } finally {
          lease();
        }
      },
    ];
  };
}

function obtainerOf(dataSource: DataSource): ObtainConnection {
  const driver = dataSource.driver as PostgresDriver & { obtainMasterConnection: ObtainConnection };
  return driver.obtainMasterConnection.bind(driver) as ObtainConnection;
}
