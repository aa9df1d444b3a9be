import type { ToolAssetSpec } from '@app/asset-registry';
import { ToolAssetDryRunner, ToolDryRunnerPort } from '@app/asset-registry';
import { AuthService } from '@app/platform';
import { HttpToolsModule, ToolKindRegistry, ToolsModule } from '@app/tools';
import { OpsModule } from '@app/ops';
import { startTestContext, TestContext, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../../support/http-stand-in';

const httpSpec = (url: string, extra: Partial<ToolAssetSpec> = {}): ToolAssetSpec => ({
  name: 'list_posts',
  description: 'list posts',
  kind: 'http',
  tool_config: { method: 'GET', url, query: { limit: '{{input.limit}}' } },
  tool_input_schema: {
    type: 'object',
    properties: { limit: { type: 'integer', minimum: 1 } },
    required: ['limit'],
    additionalProperties: false,
  },
  tool_output_schema: { type: 'object', required: ['posts'] },
  ...extra,
});

const sqlSpec: ToolAssetSpec = {
  name: 'servers_by_env',
  description: 'servers in an environment',
  kind: 'sql',
  tool_config: { query: 'SELECT name, environment FROM configuration_items WHERE environment = :env' },
  tool_input_schema: { type: 'object', properties: { env: { type: 'string' } } },
  tool_output_schema: null,
};

describe(`tool asset dry runs (${testBackend()})`, () => {
  let stand: StandInServer;
  let ctx: TestContext;

  beforeAll(async () => {
    stand = await startStandIn((req, res) =>
      req.url?.startsWith('/posts')
        ? sendJson(res, 200, { posts: [1, 2] })
        : sendJson(res, 200, { other: true }),
    );
    ctx = await startTestContext([ToolsModule, OpsModule], {
      HTTP_TOOL_ALLOWLIST: `127.0.0.1:${stand.port}`,
    });
  });
  afterAll(async () => {
    await ctx?.close();
    await stand?.close();
  });

  it('plugs its dry runner into the asset registry and registers the http, sql and query kinds on init', () => {
    // The raw instances: ctx.get wraps each in a tenant-scoping proxy, which identity checks cannot see through.
    expect(ctx.app.get(ToolDryRunnerPort).runner === ctx.app.get(ToolAssetDryRunner)).toBe(true);
    expect(ctx.get(ToolKindRegistry).kinds().sort()).toEqual(['http', 'query', 'sql']);
  });

  it('runs an http spec with its sample input and checks the output schema', async () => {
    const runner = ctx.get(ToolAssetDryRunner);
    const passed = await runner.dryRun('tenant-a', httpSpec(`${stand.url}/posts`), { limit: 2 });
    expect(passed).toMatchObject({ status: 'passed', output: { posts: [1, 2] }, error: null });
    expect(stand.requests.at(-1)?.path).toBe('/posts?limit=2');

    const wrongShape = await runner.dryRun('tenant-a', httpSpec(`${stand.url}/other`), { limit: 2 });
    expect(wrongShape).toMatchObject({ status: 'failed', error: expect.stringMatching(/output schema/) });

    const badSample = await runner.dryRun('tenant-a', httpSpec(`${stand.url}/posts`), { limit: 0 });
    expect(badSample).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/sample_input.*\/limit/),
    });
  });

  it('reports an internal target as a failed dry run, and a bad config without running', async () => {
    const runner = ctx.get(ToolAssetDryRunner);
    const blocked = await runner.dryRun('tenant-a', httpSpec('http://169.254.169.254/latest'), { limit: 1 });
    expect(blocked).toMatchObject({ status: 'failed', error: expect.stringMatching(/link-local/) });
    const invalid = await runner.dryRun(
      'tenant-a',
      httpSpec('http://{{input.host}}/x', { name: 'bad tool name' }),
      { limit: 1 },
    );
    expect(invalid).toMatchObject({ status: 'failed', error: expect.stringMatching(/scheme, host or port/) });
  });

  it('does not run a tool with side effects on publish', async () => {
    const runner = ctx.get(ToolAssetDryRunner);
    const outcome = await runner.dryRun(
      'tenant-a',
      httpSpec(`${stand.url}/posts`, {
        tool_config: { method: 'POST', url: `${stand.url}/posts`, body: { a: 1 } },
      }),
      { limit: 1 },
    );
    expect(outcome.status).toBe('skipped');
    expect(stand.requests.some((r) => r.method === 'POST')).toBe(false);
  });

  it('runs a sql spec with the real sql tool, bound to the tenant', async () => {
    const tenantId = (await ctx.get(AuthService).createTenant('dry-run-sql', 'Dry run', undefined)).tenant.id;
    const outcome = await ctx.get(ToolAssetDryRunner).dryRun(tenantId, sqlSpec, { env: 'prod' });
    expect(outcome).toMatchObject({ status: 'passed' });
  });

  describe('without a sql factory', () => {
    let httpOnly: TestContext;
    beforeAll(async () => {
      httpOnly = await startTestContext([HttpToolsModule]);
    });
    afterAll(() => httpOnly?.close());

    it('registers only the http kind and skips sql specs', async () => {
      expect(httpOnly.get(ToolKindRegistry).kinds()).toEqual(['http']);
      expect(
        await httpOnly.get(ToolAssetDryRunner).dryRun('tenant-b', sqlSpec, { env: 'prod' }),
      ).toMatchObject({
        status: 'skipped',
      });
    });
  });
});
