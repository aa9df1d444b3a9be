import { INestApplication } from '@nestjs/common';
import { AuthService, DEFAULT_TENANT_SLUG, runAsTenant } from '@app/platform';
import { DEMO_DATASET_VERSION, DemoDataService, OpsConfig } from '@app/ops';

/**
 * The start-up banner's demo lines: loaded, or loading and how to follow it. The status is read as the
 * default tenant (outside a tenant scope its row is invisible, which made a loaded demo read as
 * loading on every restart), and "loaded" follows the auto-load's own rule: ready, and of the current
 * dataset version unless DEMO_DATA=auto (which never reloads a ready tenant).
 */
export async function demoBannerLines(app: INestApplication, url: string): Promise<string[]> {
  const demo = app.get(DemoDataService);
  if (!demo.autoLoadWanted()) return [];
  const tenant = await app
    .get(AuthService)
    .getTenant(DEFAULT_TENANT_SLUG)
    .catch(() => null);
  const status = tenant ? await runAsTenant(tenant.id, () => demo.status(tenant.id)) : null;
  const current = status?.dataset_version === DEMO_DATASET_VERSION || app.get(OpsConfig).DEMO_DATA === 'auto';
  if (status?.state === 'ready' && current) return [`  Demo data: loaded in tenant "default"`];
  return [
    `  Demo data: loading into tenant "default" in the background (a few minutes; the API answers meanwhile).`,
    `             Follow it: curl -s ${url}/health/ready   (checks.demo_data: phase, progress_percent, counts)`,
  ];
}
