export const ROLES = ['reader', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Higher roles include the lower ones: an admin may do what an operator may, and so on. */
export function roleSatisfies(actual: Role, required: Role): boolean {
  return ROLES.indexOf(actual) >= ROLES.indexOf(required);
}

/** Who is calling, established only from the API key. */
export interface Principal {
  tenantId: string;
  tenantSlug: string;
  userId: string;
  role: Role;
  keyId: string;
  isSystemAdmin: boolean;
}
