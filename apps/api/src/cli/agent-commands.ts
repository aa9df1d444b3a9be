import { BlogToolsPublisher } from '@app/assistant';
import { cliTenant, openCliApp } from './cli-app';
import { ParsedArgs, stringFlag } from './cli-args';

/**
 * `agents publish-blog-tools`: creates and publishes the blog tool assets of a tenant in the
 * database (a stopped server's DATA_DIR, or DATABASE_URL); a server started afterwards serves them.
 */
export async function runAgentsCommand(args: ParsedArgs): Promise<void> {
  const [, action] = args.positional;
  if (action !== 'publish-blog-tools')
    throw new Error('usage: agents publish-blog-tools [--tenant T] [--base-url URL]');
  const dataDir = stringFlag(args, 'data-dir');
  if (dataDir) process.env.DATA_DIR = dataDir;
  const baseUrl = stringFlag(args, 'base-url') ?? process.env.BLOG_API_BASE_URL;
  if (!baseUrl || !/^https?:\/\/[^/?#\s]+/.test(baseUrl))
    throw new Error('Give the blog backend with --base-url http://host:port or BLOG_API_BASE_URL.');
  const app = await openCliApp(args);
  try {
    const tenant = await cliTenant(app, args);
    const published = await app
      .get(BlogToolsPublisher)
      .publish({ tenantId: tenant.id, userId: 'cli' }, baseUrl);
    for (const item of published)
      process.stdout.write(
        `${item.name}: ${item.outcome}, serving version ${item.version} (asset ${item.asset_id})\n`,
      );
    process.stdout.write(
      'the tools send the secret OPS_SECRET_BLOG_API_KEY as X-User-Api-Key: set it on the server and grant it ' +
        `to the tenant (SECRET_ENV_GRANTS=${tenant.slug}:OPS_SECRET_BLOG_API_KEY)\n`,
    );
  } finally {
    await app.close();
  }
}
