export const ROLES = ['reader', 'operator', 'admin', 'service'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What each role may act as. reader < operator < admin is a ladder; `service` (a backend calling on
 * behalf of its users) sits beside it: it may read like a reader and call the service endpoints
 * (`/internal/*`, tool runs) but not plan, ingest or manage keys and assets. An admin may do anything.
 */
const GRANTS: Record<Role, readonly Role[]> = {
  reader: ['reader'],
  operator: ['reader', 'operator'],
  admin: ['reader', 'operator', 'admin', 'service'],
  service: ['reader', 'service'],
};

export function roleSatisfies(actual: Role, required: Role): boolean {
  return GRANTS[actual]?.includes(required) ?? false;
}

/** True when the role satisfies at least one of the given roles. */
export function roleSatisfiesAny(actual: Role, required: readonly Role[]): boolean {
  return required.some((role) => roleSatisfies(actual, role));
}

/** Roles that may run tools directly (MCP tools/call, the agent's tool loop). */
export const TOOL_RUNNER_ROLES: readonly Role[] = ['operator', 'service'];

/** Who is calling, established only from the API key. */
export interface Principal {
  tenantId: string;
  tenantSlug: string;
  userId: string;
  role: Role;
  keyId: string;
  isSystemAdmin: boolean;
}
