import {
  DEMO_CATALOG_ASSET,
  DEMO_MAPPING_ASSET,
  DEMO_RUNBOOKS_DIR,
  DemoDataService,
  type DemoScale,
} from '@app/ops';
import { cliTenant, openCliApp } from './cli-app';
import { ParsedArgs, stringFlag } from './cli-args';

/** `seed demo [--tenant slug] [--scale full|small]`: loads the demo dataset (idempotent) and waits. */
export async function runSeedCommand(args: ParsedArgs): Promise<void> {
  const [, what] = args.positional;
  if (what !== 'demo')
    throw new Error('usage: seed demo [--tenant <slug>] [--scale full|small] [--data-dir DIR]');
  const scale = (stringFlag(args, 'scale') ?? 'full') as DemoScale;
  if (scale !== 'full' && scale !== 'small') throw new Error('--scale must be full or small');
  const dataDir = stringFlag(args, 'data-dir');
  if (dataDir) process.env.DATA_DIR = dataDir;
  const app = await openCliApp(args);
  try {
    const tenant = await cliTenant(app, args);
    process.stdout.write(`loading the ${scale} demo dataset into tenant "${tenant.slug}"...\n`);
    const started = Date.now();
    const status = await app.get(DemoDataService).load(tenant.id, { scale });
    if (status.state !== 'ready')
      throw new Error(`demo data is ${status.state}: ${status.error ?? 'another process is loading it'}`);
    const counts = Object.entries(status.counts)
      .map(([name, count]) => `${name}=${count}`)
      .join(' ');
    process.stdout.write(`demo data ready in ${Math.round((Date.now() - started) / 1000)} s: ${counts}\n`);
    process.stdout.write(
      `published catalog "${DEMO_CATALOG_ASSET}" and mappings "${DEMO_MAPPING_ASSET}"; runbooks from ${DEMO_RUNBOOKS_DIR} ingested\n`,
    );
  } finally {
    await app.close();
  }
}
