import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { runAsSystem, runAsTenant } from '@app/platform';

const firstParameters = new WeakMap<object, string | null>();

/** The name of a function's first parameter as declared (`search(tenantId, request)` -> "tenantId"). */
function firstParameterName(fn: (...args: unknown[]) => unknown): string | null {
  let name = firstParameters.get(fn);
  if (name === undefined) {
    const source = Function.prototype.toString.call(fn);
    const open = source.indexOf('(');
    name = open < 0 ? null : (/^\(\s*([\w$]+)\s*[,)=]/.exec(source.slice(open))?.[1] ?? null);
    firstParameters.set(fn, name);
  }
  return name;
}

/**
 * The tenant a direct call names: the argument in the parameter the method declares as `tenantId`, or
 * the `tenantId` field of an argument (a tool context, an actor, a search). Never guessed from what a
 * value looks like: a document or run id passed first is not a tenant.
 */
function tenantOf(fn: (...args: unknown[]) => unknown, args: unknown[]): string | undefined {
  if (firstParameterName(fn) === 'tenantId' && typeof args[0] === 'string') return args[0];
  for (const arg of args) {
    if (!arg || typeof arg !== 'object') continue;
    const tenantId = (arg as { tenantId?: unknown }).tenantId;
    if (typeof tenantId === 'string') return tenantId;
  }
  return undefined;
}

/**
 * Medium tests call services directly, standing in for the request layer that normally sets the
 * row-level-security scope from the caller's key. This proxy does the same for each direct call: a
 * call naming its tenant (see tenantOf) runs as that tenant, `scope` (TestContext.forTenant) runs
 * every call as the given tenant, and any other call (creating tenants, raw inspection queries) runs
 * as the system. Calls the services make to each other inside keep the scope of the test's call.
 */
export function scopedForTests<T>(instance: T, scope?: { tenantId: string }): T {
  if (!instance || typeof instance !== 'object') return instance;
  return new Proxy(instance, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      // jest.spyOn replaces the method with a mock: hand the mock itself back so the test can use it.
      if (typeof value !== 'function' || property === 'constructor' || 'mock' in value) return value;
      const method = value as (...a: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const call = () => method.apply(target, args);
        const tenantId = scope?.tenantId ?? tenantOf(method, args);
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
