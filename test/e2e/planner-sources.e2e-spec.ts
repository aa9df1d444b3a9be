import { FakeLlmServer, planWhenTrained, startTestApp, TestApp, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

/** Two databases with a table of the same name whose `status` column takes different values. */
const accountsCatalog = (source: string, statuses: string[], extra: string) => ({
  source: { kind: 'source_asset', name: source },
  tables: [
    {
      name: 'accounts',
      description: 'customer accounts',
      columns: [
        { name: 'id', type: 'uuid', primary_key: true },
        { name: 'status', type: 'text', enum_values: statuses },
        { name: extra, type: 'text', description: `the ${extra.replace('_', ' ')}` },
      ],
    },
  ],
});

const PLAN = (extra: Record<string, unknown> = {}) => ({
  intent: 'list_accounts',
  steps: [{ id: 's1', tool_type: 'billing_accounts', parameters: { status: 'churned' }, ...extra }],
});

/**
 * A tenant with two databases (two published `source` assets, each with its catalog) and a tool reading
 * each: every question is planned over the catalog of the source its tool reads, by the LLM and by the
 * fallback planner, and each plan step names its source.
 */
describe(`planning over the catalog of each source (${testBackend()})`, () => {
  let t: TestApp;
  let llm: FakeLlmServer;
  let stand: StandInServer;
  let admin: string;

  async function publish(body: Record<string, unknown>) {
    const created = await t.request('POST', '/api/assets', { key: admin, body });
    expect(created.status).toBe(201);
    return t.request('POST', `/api/assets/${created.body.id}/publish`, { key: admin });
  }

  const accountsTool = (name: string, source: string, path: string, description: string) => ({
    asset_type: 'tool',
    name,
    description,
    tool_type: 'http',
    source_ref: source,
    tool_config: { method: 'GET', url: `${stand.url}${path}`, query: { status: '{{input.status}}' } },
    tool_input_schema: {
      type: 'object',
      properties: { status: { type: 'string', 'x-catalog-column': 'accounts.status' } },
      required: ['status'],
    },
  });

  beforeAll(async () => {
    llm = await FakeLlmServer.start();
    stand = await startStandIn((req, res) =>
      sendJson(res, 200, { items: [{ id: 'a1', path: req.url }], row_count: 1 }),
    );
    t = await startTestApp({
      DEMO_DATA: 'off',
      HTTP_TOOL_ALLOWLIST: `127.0.0.1:${stand.port}`,
      LLM_BASE_URL: llm.url,
      LLM_API_KEY: 'test-key',
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '0',
    });
    admin = (await t.request('POST', '/api/tenants', { body: { slug: 'two-sources' } })).body.secret;
    for (const [name, host] of [
      ['crm_db', 'crm.example.com'],
      ['billing_db', 'billing.example.com'],
    ])
      expect(
        (
          await publish({
            asset_type: 'source',
            name,
            content: { kind: 'postgres', connection: { host, database: name, user: 'reader' } },
          })
        ).status,
      ).toBe(200);
    // The CRM's catalog has its own name; the billing one is named like its source.
    expect(
      (
        await publish({
          asset_type: 'catalog',
          name: 'crm_catalog',
          content: accountsCatalog('crm_db', ['active', 'suspended'], 'sales_rep'),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await publish({
          asset_type: 'catalog',
          name: 'billing_db',
          content: accountsCatalog('billing_db', ['trialing', 'churned'], 'plan_code'),
        })
      ).status,
    ).toBe(200);
    for (const tool of [
      accountsTool('crm_accounts', 'crm_db', '/crm/accounts', 'Rows of the CRM by state'),
      accountsTool(
        'billing_accounts',
        'billing_db',
        '/billing/accounts',
        'Rows of the subscription ledger by state',
      ),
    ])
      expect((await publish(tool)).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await stand?.close();
  });
  beforeEach(() => llm.reset());

  it('tools say which source they read; a tool may not name a source that is not published', async () => {
    const tools = (await t.request('GET', '/ops/tools', { key: admin })).body.tools as Array<{
      name: string;
      source_ref?: string | null;
    }>;
    const sourceOf = (name: string) => tools.find((tool) => tool.name === name)?.source_ref;
    expect(sourceOf('crm_accounts')).toBe('crm_db');
    expect(sourceOf('billing_accounts')).toBe('billing_db');
    expect(sourceOf('ci_lookup')).toBe('internal');
    expect(sourceOf('metric_query')).toBe('internal');
    expect(sourceOf('document_search') ?? null).toBeNull();

    const unknown = await publish(
      accountsTool('ghost_accounts', 'nowhere_db', '/ghost', 'Rows of a database nobody published'),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('source_ref "nowhere_db"');
    const sql = await publish({
      asset_type: 'tool',
      name: 'ghost_sql',
      description: 'SQL on a database nobody published',
      tool_type: 'sql',
      source_ref: 'nowhere_db',
      tool_config: { query: 'SELECT name FROM accounts LIMIT 1' },
      tool_input_schema: { type: 'object', properties: {} },
    });
    expect(sql.status).toBe(400);
    expect(sql.body.message).toContain('source_ref "nowhere_db"');
  });

  it('the LLM gets every source with its catalog and the tools under their source; the step carries its source', async () => {
    llm.enqueue(FakeLlmServer.json(PLAN()));
    const res = await t.request('POST', '/ops/plan', {
      key: admin,
      body: { query: 'list the churned accounts' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, planner: 'llm' });
    expect(res.body.plan.steps).toEqual([
      expect.objectContaining({
        tool_type: 'billing_accounts',
        source: 'billing_db',
        parameters: { status: 'churned' },
      }),
    ]);
    expect(res.body.asset_versions.catalogs).toEqual([
      { source: 'billing_db', catalog: { name: 'billing_db', version: 1 } },
    ]);
    expect(res.body.prompt.sources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          source: 'crm_db',
          catalog: { name: 'crm_catalog', version: 1 },
          tools: ['crm_accounts'],
        }),
        expect.objectContaining({ source: 'billing_db', included_tables: ['accounts'] }),
      ]),
    );

    const prompt = llm.chatRequests[0].body.messages[1].content as string;
    expect(prompt).toContain('Source "crm_db":\n- crm_accounts: Rows of the CRM by state');
    expect(prompt).toContain(
      'Source "billing_db":\n- billing_accounts: Rows of the subscription ledger by state',
    );
    expect(prompt).toContain('Source "internal":\n- ci_lookup:');
    expect(prompt).toContain(
      'Source "crm_db" (catalog "crm_catalog" v1; tools: crm_accounts):\ntable accounts - customer accounts',
    );
    expect(prompt).toContain('Source "billing_db" (catalog "billing_db" v1; tools: billing_accounts):');
    expect(prompt).toContain('status (text) values: active|suspended');
    expect(prompt).toContain('status (text) values: trialing|churned');
    expect(prompt).toContain('sales_rep (text) - the sales rep');
    expect(prompt).toContain('plan_code (text) - the plan code');
    expect(
      llm.chatRequests[0].body.response_format.json_schema.schema.properties.steps.items.properties,
    ).toHaveProperty('source');
  });

  it('a step naming another source than its tool reads is rejected and sent back to the model', async () => {
    llm.enqueue(
      FakeLlmServer.json(PLAN({ source: 'crm_db' })),
      FakeLlmServer.json(PLAN({ source: 'billing_db' })),
    );
    const res = await t.request('POST', '/ops/plan', {
      key: admin,
      body: { query: 'list the churned accounts' },
    });
    expect(res.body).toMatchObject({ valid: true, planner: 'llm_repair' });
    expect(res.body.rejected[0].errors).toEqual([
      expect.objectContaining({ code: 'SOURCE_MISMATCH', step_id: 's1', path: '/source' }),
    ]);
    expect(llm.chatRequests[1].body.messages.at(-1).content).toContain(
      'reads source \\"billing_db\\", not \\"crm_db\\"',
    );
  });

  it('the fallback planner picks the tool whose source catalog lists the value the question names', async () => {
    const plan = async (query: string) => {
      const res = await planWhenTrained(t, { query, use_llm: false }, admin);
      expect(res.body).toMatchObject({ valid: true, planner: 'fallback' });
      return (
        res.body.plan.steps as Array<{ tool_type: string; source?: string; parameters: unknown }>
      ).filter((step) => step.tool_type.endsWith('_accounts'));
    };
    // "churned" is a value of billing_db's accounts.status only; "suspended" of crm_db's only.
    expect(await plan('list the churned accounts')).toEqual([
      expect.objectContaining({
        tool_type: 'billing_accounts',
        source: 'billing_db',
        parameters: { status: 'churned' },
      }),
    ]);
    expect(await plan('list the suspended accounts')).toEqual([
      expect.objectContaining({
        tool_type: 'crm_accounts',
        source: 'crm_db',
        parameters: { status: 'suspended' },
      }),
    ]);
    expect(llm.chatRequests).toHaveLength(0);
  });

  it('/ops/ask and the stored stage run show the source of each step', async () => {
    llm.enqueue(FakeLlmServer.json(PLAN()));
    llm.setDefault(FakeLlmServer.text('One churned account: a1.'));
    const res = await t.request('POST', '/ops/ask', {
      key: admin,
      body: { query: 'list the churned accounts' },
    });
    llm.setDefault(null);
    expect(res.status).toBe(200);
    expect(res.body.planning.plan.steps[0]).toMatchObject({
      tool_type: 'billing_accounts',
      source: 'billing_db',
    });
    expect(res.body.execution.steps).toEqual([
      expect.objectContaining({
        step_id: 's1',
        tool_type: 'billing_accounts',
        source: 'billing_db',
        status: 'succeeded',
      }),
    ]);
    expect(stand.requests.some((r) => r.path === '/billing/accounts?status=churned')).toBe(true);
    const run = await t.request('GET', `/ops/stage/runs/${res.body.execution.run_id}`, { key: admin });
    expect(run.status).toBe(200);
    expect(run.body.results).toEqual([
      expect.objectContaining({ id: 's1', tool_name: 'billing_accounts', source: 'billing_db' }),
    ]);
  });
});
