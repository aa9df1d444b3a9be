import type { PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { currentDatabaseScope } from './database-scope';

type ObtainConnection = () => Promise<[PoolClient, (error?: unknown) => void]>;

interface ScopedClient extends PoolClient {
  opsScope?: { role: string | null; tenant: string; bypass: string };
}

/**
 * Sets the row-level-security scope of the current async context (tenant, bypass) on every
 * connection TypeORM takes from the pool, in one round trip that is skipped when the connection
 * already carries that scope. A query runner keeps its connection, so a transaction keeps the scope
 * it started with.
 *
 * `role`: embedded only. PGlite has a single superuser, so each connection switches to the
 * application role (superusers bypass row-level security). PGlite also has a single session shared
 * by every socket connection (another pool, e.g. the migrations', changes the same settings), so on
 * embedded nothing is cached: role and scope are set on every checkout (in-process, ~0.1 ms).
 */
export function applyConnectionScope(dataSource: DataSource, role: string | null = null): void {
  const driver = dataSource.driver as PostgresDriver & { obtainMasterConnection: ObtainConnection };
  const obtain = driver.obtainMasterConnection.bind(driver) as ObtainConnection;
  driver.obtainMasterConnection = async () => {
    const [client, release] = (await obtain()) as [ScopedClient, (error?: unknown) => void];
    const scope = currentDatabaseScope();
    const wanted = { role, tenant: scope.tenantId ?? '', bypass: scope.bypass ? 'on' : 'off' };
    const cached = role ? undefined : client.opsScope;
    if (cached?.role === wanted.role && cached.tenant === wanted.tenant && cached.bypass === wanted.bypass)
      return [client, release];
    try {
      client.opsScope = undefined;
      await client.query(
        role && cached?.role !== role
          ? `SELECT set_config('role', $3, false), set_config('app.tenant_id', $1, false), set_config('app.rls_bypass', $2, false)`
          : `SELECT set_config('app.tenant_id', $1, false), set_config('app.rls_bypass', $2, false)`,
        role && cached?.role !== role ? [wanted.tenant, wanted.bypass, role] : [wanted.tenant, wanted.bypass],
      );
      client.opsScope = wanted;
    } catch (error) {
      release(error);
      throw error;
    }
    return [client, release];
  };
}
