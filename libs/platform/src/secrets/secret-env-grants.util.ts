/** Which `env:` names each tenant may reference: `SECRET_ENV_GRANTS=acme:OPS_SECRET_A,OPS_SECRET_B;<uuid>:OPS_SECRET_C`. */
export type SecretEnvGrants = Map<string, Set<string>>;

/** `*` as the tenant grants a name to every tenant (the behaviour before grants; single-tenant setups only). */
export const EVERY_TENANT = '*';

export function parseSecretEnvGrants(spec: string | undefined): SecretEnvGrants {
  const grants: SecretEnvGrants = new Map();
  for (const entry of (spec ?? '').split(';')) {
    if (!entry.trim()) continue;
    const colon = entry.indexOf(':');
    if (colon <= 0) throw new Error(`SECRET_ENV_GRANTS entry "${entry.trim()}" is not tenant:NAME[,NAME]`);
    const tenant = entry.slice(0, colon).trim();
    const names = entry
      .slice(colon + 1)
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    const set = grants.get(tenant) ?? new Set<string>();
    for (const name of names) set.add(name);
    grants.set(tenant, set);
  }
  return grants;
}

/** Whether a tenant (known by id and slug) was granted an environment variable. */
export function isEnvGranted(
  grants: SecretEnvGrants,
  tenant: { id: string; slug?: string },
  name: string,
): boolean {
  return [tenant.id, tenant.slug, EVERY_TENANT].some(
    (key) => key !== undefined && (grants.get(key)?.has(name) ?? false),
  );
}
