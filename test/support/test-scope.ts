import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { runAsSystem, runAsTenant } from '@app/platform';

const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;

function tenantOf(args: unknown[]): string | undefined {
  const [first] = args;
  if (typeof first === 'string' && UUID.test(first)) return first;
  for (const arg of args) {
    const tenantId = (arg as { tenantId?: unknown } | null)?.tenantId;
    if (arg && typeof arg === 'object' && typeof tenantId === 'string' && UUID.test(tenantId))
      return tenantId;
  }
  return undefined;
}

/**
 * Medium tests call services directly, standing in for the request layer that normally sets the
 * row-level-security scope from the caller's key. This proxy does the same for each direct call: a
 * call naming a tenant (first argument a tenant id, or an argument with `tenantId`) runs as that
 * tenant; any other call (creating tenants, raw inspection queries) runs as the system.
 * Calls the services make to each other inside keep the scope of the test's call.
 */
export function scopedForTests<T>(instance: T): T {
  if (!instance || typeof instance !== 'object') return instance;
  return new Proxy(instance, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      // jest.spyOn replaces the method with a mock: hand the mock itself back so the test can use it.
      if (typeof value !== 'function' || property === 'constructor' || 'mock' in value) return value;
      return (...args: unknown[]) => {
        const call = () => (value as (...a: unknown[]) => unknown).apply(target, args);
        const tenantId = tenantOf(args);
        return tenantId
          ? runAsTenant(tenantId, call)
          : runAsSystem(`test: ${String(property)}`, call, { quiet: true });
      };
    },
  });
}

/**
 * Runs DDL as the schema owner, as a migration would: the application role may not (native: the
 * owner's URL, DATABASE_MIGRATION_URL; embedded: the superuser, for this transaction only).
 */
export async function queryAsOwner(
  database: { env: Record<string, string> },
  dataSource: DataSource,
  sql: string,
): Promise<void> {
  const ownerUrl = database.env.DATABASE_MIGRATION_URL;
  if (ownerUrl) {
    const client = new Client({ connectionString: ownerUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
    return;
  }
  await runAsSystem('test: owner DDL', () =>
    dataSource.transaction(async (em) => {
      await em.query('SET LOCAL ROLE postgres');
      await em.query(sql);
    }),
  );
}
