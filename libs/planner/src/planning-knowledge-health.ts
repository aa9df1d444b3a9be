import { Injectable } from '@nestjs/common';
import { PublishedAssetReader } from '@app/asset-registry';
import { AuthService, type DependencyHealth, type HealthViewer, runAsSystem } from '@app/platform';
import { PLANNER_ASSET_NAMES } from './knowledge/asset-planning-knowledge';

/** At most this many tenants are listed one by one in the readiness report (the counts cover all). */
export const KNOWLEDGE_HEALTH_MAX_TENANTS = 50;

export interface TenantPlanningKnowledge {
  /** Serving version of the catalog the planner reads, or null when none is published. */
  catalog: number | null;
  /** Serving version of the keyword mappings the planner reads, or null when none is published. */
  mappings: number | null;
  /** Both published: plans can name catalog values and use the tenant's vocabulary. */
  ready: boolean;
}

/**
 * Planning-knowledge readiness per tenant for `/health/ready` (`checks.planning_knowledge`): whether each
 * tenant's catalog and keyword mappings are published, with their versions. Informational: its status is
 * `ok` even when a tenant has nothing published (the planner still plans, with a `knowledge_incomplete`
 * warning), so it never makes readiness fail or degrade. Two cached cross-tenant reads and the tenant list;
 * tenants are named by slug, as in the admin API, and only to a system admin key (the report is public).
 */
@Injectable()
export class PlanningKnowledgeHealth {
  constructor(
    private readonly assets: PublishedAssetReader,
    private readonly auth: AuthService,
  ) {}

  /** Counts for everyone; the per-tenant list (slugs name customers) only for a system admin. */
  async check(viewer: HealthViewer = { systemAdmin: false }): Promise<DependencyHealth> {
    // Cross-tenant by nature (a readiness report over every tenant); quiet: readiness is polled often.
    const [tenants, catalogs, mappings] = await runAsSystem(
      'health: planning knowledge per tenant',
      () =>
        Promise.all([
          this.auth.listTenants(),
          this.assets.listPublishedAcrossTenants('catalog'),
          this.assets.listPublishedAcrossTenants('mapping'),
        ]),
      { quiet: true },
    );
    const version = (list: typeof catalogs, name: string, tenantId: string) =>
      list.find((a) => a.tenant_id === tenantId && a.name === name)?.version ?? null;
    const byTenant: Record<string, TenantPlanningKnowledge> = {};
    let ready = 0;
    for (const tenant of [...tenants].sort((a, b) => a.slug.localeCompare(b.slug))) {
      const catalog = version(catalogs, PLANNER_ASSET_NAMES.catalog, tenant.id);
      const mapping = version(mappings, PLANNER_ASSET_NAMES.mappings, tenant.id);
      const complete = catalog !== null && mapping !== null;
      if (complete) ready++;
      if (viewer.systemAdmin && Object.keys(byTenant).length < KNOWLEDGE_HEALTH_MAX_TENANTS)
        byTenant[tenant.slug] = { catalog, mappings: mapping, ready: complete };
    }
    return {
      status: 'ok',
      catalog_name: PLANNER_ASSET_NAMES.catalog,
      mappings_name: PLANNER_ASSET_NAMES.mappings,
      tenants_total: tenants.length,
      tenants_ready: ready,
      ...(viewer.systemAdmin
        ? {
            ...(tenants.length > KNOWLEDGE_HEALTH_MAX_TENANTS ? { tenants_truncated: true } : {}),
            tenants: byTenant,
          }
        : {}),
    };
  }
}
