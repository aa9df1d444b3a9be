import { Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { RequestContext } from '../context/request-context';

/**
 * Whose rows a database connection may see: the tenant is set on every pooled connection at checkout
 * (`app.tenant_id`, enforced by the row-level security policies); system scope takes its connection
 * from the pool of the BYPASSRLS system role instead (see applyConnectionScope).
 */
export interface DatabaseScope {
  /** The tenant whose rows are visible; none: no tenant-owned row is visible. */
  tenantId: string | null;
  /** System-wide access (a connection of the system role), only through `runAsSystem`. */
  bypass: boolean;
}

const storage = new AsyncLocalStorage<DatabaseScope>();
const audit = new Logger('SystemAccess');

/**
 * The scope for the current async context: an explicit `runAsSystem`/`runAsTenant` wins, otherwise
 * the tenant of the authenticated principal, otherwise nothing (every tenant-owned table is empty).
 */
export function currentDatabaseScope(): DatabaseScope {
  const explicit = storage.getStore();
  if (explicit) return explicit;
  return { tenantId: RequestContext.current()?.principal?.tenantId ?? null, bypass: false };
}

/**
 * Runs `fn` with access to every tenant's rows. Only for system paths that are cross-tenant by
 * nature (schedulers, recovery, purge, the job worker's claim, system-admin tenant management, key
 * lookup before the tenant is known, bootstrap, migrations); each entry is logged with its reason.
 * `quiet` logs at debug level, for the per-request key lookup.
 */
export function runAsSystem<T>(reason: string, fn: () => T, options: { quiet?: boolean } = {}): T {
  const entry = { msg: 'system database access', reason, caller: callerOf(new Error().stack) };
  if (options.quiet) audit.debug(entry);
  else audit.log(entry);
  return storage.run({ tenantId: null, bypass: true }, fn);
}

/** Runs `fn` as one tenant, e.g. a background job processing that tenant's document. */
export function runAsTenant<T>(tenantId: string, fn: () => T): T {
  return storage.run({ tenantId, bypass: false }, fn);
}

function callerOf(stack: string | undefined): string | undefined {
  // line 0 is "Error", line 1 is runAsSystem itself, line 2 its caller
  return stack?.split('\n')[2]?.trim().replace(/^at /, '');
}
