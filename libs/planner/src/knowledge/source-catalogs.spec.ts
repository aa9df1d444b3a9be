import type { CatalogContent } from '@app/asset-registry';
import { BUILTIN_TOOL_DEFINITIONS, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import type { ToolDefinition } from '@app/tools';
import { FallbackPlanner } from '../fallback/fallback-planner';
import { PlanValidator } from '../plan/plan-validator';
import { PromptBuilder } from '../prompt/prompt-builder';
import { catalogForSource } from './asset-planning-knowledge';
import { InMemoryPlanningKnowledge } from './planning-knowledge';
import { loadSourceCatalogs } from './source-catalogs';

const NOW = new Date('2026-11-22T09:00:00Z');

/** Two databases with a table of the same name whose `status` column takes different values. */
const catalogOf = (source: string, statuses: string[], extra: string): CatalogContent => ({
  source: { kind: 'source_asset', name: source },
  tables: [
    {
      name: 'accounts',
      description: 'customer accounts',
      columns: [
        { name: 'id', type: 'uuid', primary_key: true },
        { name: 'status', type: 'text', enum_values: statuses },
        { name: extra, type: 'text' },
      ],
    },
  ],
});
const CRM = catalogOf('crm_db', ['active', 'suspended'], 'sales_rep');
const BILLING = catalogOf('billing_db', ['trialing', 'churned'], 'plan_code');

const accountsTool = (name: string, source: string, description: string): ToolDefinition => ({
  name,
  description,
  kind: 'http',
  input_schema: {
    type: 'object',
    properties: { status: { type: 'string', 'x-catalog-column': 'accounts.status' } },
    required: ['status'],
  },
  output_schema: null,
  has_side_effects: false,
  timeout_ms: 10_000,
  source: 'dynamic',
  source_ref: source,
});
const TOOLS = [
  ...BUILTIN_TOOL_DEFINITIONS,
  accountsTool('crm_accounts', 'crm_db', 'Rows of the CRM by state'),
  accountsTool('billing_accounts', 'billing_db', 'Rows of the subscription ledger by state'),
];

async function sourced() {
  const knowledge = new InMemoryPlanningKnowledge();
  knowledge.set(null, {
    sourceCatalogs: {
      crm_db: { name: 'crm_catalog', version: 2, content: CRM },
      billing_db: { name: 'billing_db', version: 1, content: BILLING },
    },
  });
  return loadSourceCatalogs(knowledge, 't', { name: 'ops', version: 3, content: OPS_CATALOG }, TOOLS);
}

describe('planning over the catalog of each source', () => {
  it('finds a source its catalog: synced from it, the one named like the source first', () => {
    const entry = (name: string, source: string | null) => ({
      name,
      content: source
        ? { source: { kind: 'source_asset' as const, name: source }, tables: [] }
        : { source: { kind: 'internal' as const }, tables: [] },
    });
    const catalogs = [
      entry('z_crm', 'crm_db'),
      entry('crm_db', 'crm_db'),
      entry('ops', null),
      entry('a', 'x'),
    ];
    expect(catalogForSource(catalogs, 'crm_db')?.name).toBe('crm_db');
    expect(catalogForSource(catalogs.slice(0, 1), 'crm_db')?.name).toBe('z_crm');
    expect(catalogForSource(catalogs, 'internal')?.name).toBe('ops');
    expect(catalogForSource(catalogs, 'nowhere')).toBeNull();
  });

  it('gives each tool the catalog of its source; tools without one read the internal source', async () => {
    const { index, sources } = await sourced();
    expect(sources.map((s) => [s.source, s.catalog?.name ?? null, s.tools])).toEqual([
      ['internal', 'ops', ['ci_lookup', 'metric_query', 'history_query', 'graph_analysis']],
      ['billing_db', 'billing_db', ['billing_accounts']],
      ['crm_db', 'crm_catalog', ['crm_accounts']],
    ]);
    expect(index.forTool('billing_accounts').enumValues('accounts', 'status')).toEqual([
      'trialing',
      'churned',
    ]);
    expect(index.forTool('crm_accounts').enumValues('accounts', 'status')).toEqual(['active', 'suspended']);
    expect(index.forTool('document_search').table('configuration_items')).toBeDefined();
    expect(index.allEnumValues().find((h) => h.value === 'churned')).toMatchObject({ source: 'billing_db' });
  });

  it('the fallback planner picks the tool whose source lists the value the question names', async () => {
    const { index: catalog } = await sourced();
    const planner = new FallbackPlanner(null, { trainSynchronously: true });
    // Both tools take accounts.status; only one source's catalog lists the value. (The built-in tools
    // read the internal source; the classifier may add an unfiltered ci_lookup, which is not at issue here.)
    const accountSteps = (query: string) =>
      planner
        .plan({ query, tools: TOOLS, catalog, mappings: OPS_KEYWORD_MAPPINGS, now: NOW, maxLimit: 100 })
        .plan.steps.filter((s) => s.tool_type.endsWith('_accounts'))
        .map((s) => [s.tool_type, s.parameters]);
    expect(accountSteps('list the churned accounts')).toEqual([['billing_accounts', { status: 'churned' }]]);
    expect(accountSteps('which accounts are trialing')).toEqual([
      ['billing_accounts', { status: 'trialing' }],
    ]);
    expect(accountSteps('list the suspended accounts')).toEqual([['crm_accounts', { status: 'suspended' }]]);
  });

  it('a value only its source lists keeps that source tool beside a built-in tool whose examples read like the question', async () => {
    // Seed 004's tenant: no internal catalog, a `postgres_prod` database whose catalog lists the
    // environments, and a query tool on it; the built-in metric tool's own examples read almost like the
    // question. The trained planner must not drop the tenant's tool for them.
    const servers: CatalogContent = {
      source: { kind: 'source_asset', name: 'postgres_prod' },
      tables: [
        {
          name: 'servers',
          description: 'servers',
          columns: [
            { name: 'server_id', type: 'text', primary_key: true },
            { name: 'environment', type: 'text', enum_values: ['prod', 'staging', 'dev'] },
          ],
        },
      ],
    };
    const topCpu: ToolDefinition = {
      ...accountsTool('top_cpu_servers', 'postgres_prod', 'Servers of one environment by average CPU usage'),
      input_schema: {
        type: 'object',
        properties: {
          environment: { type: 'string', 'x-catalog-column': 'servers.environment' },
          top: { type: 'integer', minimum: 1, maximum: 100, default: 5 },
        },
        required: ['environment', 'top'],
      },
    };
    const tools = [...BUILTIN_TOOL_DEFINITIONS, topCpu];
    const knowledge = new InMemoryPlanningKnowledge();
    knowledge.set(null, {
      sourceCatalogs: { postgres_prod: { name: 'postgres_prod', version: 1, content: servers } },
    });
    const { index: catalog } = await loadSourceCatalogs(knowledge, 't', null, tools);
    const planned = new FallbackPlanner(null, { trainSynchronously: true }).plan({
      query: 'prod 환경 서버 CPU 사용률 top 5',
      tools,
      catalog,
      mappings: null,
      now: NOW,
      maxLimit: 100,
    });
    expect(planned.plan.steps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          tool_type: 'top_cpu_servers',
          parameters: { environment: 'prod', top: 5 },
        }),
      ]),
    );
  });

  it('a step runs against its tool source: filled in, checked against that catalog, refused when another', async () => {
    const { index: catalog } = await sourced();
    const validator = new PlanValidator();
    const context = { tools: TOOLS, catalog, maxLimit: 100, maxSteps: 5 };
    const step = (extra: Record<string, unknown>) => ({
      intent: 'x',
      steps: [{ id: 's1', tool_type: 'billing_accounts', parameters: { status: 'churned' }, ...extra }],
    });
    expect(validator.validate(step({}), context).plan?.steps[0]).toMatchObject({ source: 'billing_db' });
    expect(validator.validate(step({ source: 'billing_db' }), context).valid).toBe(true);
    expect(validator.validate(step({ source: 'crm_db' }), context).errors).toEqual([
      expect.objectContaining({ code: 'SOURCE_MISMATCH', step_id: 's1', path: '/source' }),
    ]);
    const wrongValue = validator.validate(
      { intent: 'x', steps: [{ id: 's1', tool_type: 'crm_accounts', parameters: { status: 'churned' } }] },
      context,
    );
    expect(wrongValue.errors).toEqual([expect.objectContaining({ code: 'UNKNOWN_CATALOG_VALUE' })]);
    const documents = validator.validate(
      { intent: 'x', steps: [{ id: 's1', tool_type: 'document_search', parameters: { query: 'x' } }] },
      context,
    );
    expect(documents.plan?.steps[0].source).toBeUndefined();
  });

  it('the prompt lists every source with its catalog and the tools under their source', async () => {
    const { index: catalog, sources } = await sourced();
    const { messages, report } = new PromptBuilder().build({
      query: 'list the churned accounts',
      tools: TOOLS,
      catalog,
      sources,
      mappings: OPS_KEYWORD_MAPPINGS,
      systemPrompt: null,
      tokenBudget: 6000,
      now: NOW,
      toolScores: { billing_accounts: 1 },
    });
    const user = messages[1].content as string;
    expect(user).toContain(
      'Source "billing_db":\n- billing_accounts: Rows of the subscription ledger by state',
    );
    expect(user).toContain('No data source:\n- document_search:');
    expect(user).toContain(
      'Source "crm_db" (catalog "crm_catalog" v2; tools: crm_accounts):\ntable accounts',
    );
    expect(user).toContain('status (text) values: trialing|churned');
    expect(user).toContain('status (text) values: active|suspended');
    expect(report.sources.map((s) => [s.source, s.catalog, s.included_tables])).toEqual([
      ['internal', { name: 'ops', version: 3 }, expect.arrayContaining(['configuration_items'])],
      ['billing_db', { name: 'billing_db', version: 1 }, ['accounts']],
      ['crm_db', { name: 'crm_catalog', version: 2 }, ['accounts']],
    ]);
    expect(report.included_tables).toEqual(
      expect.arrayContaining(['billing_db.accounts', 'crm_db.accounts']),
    );
    expect(report.estimated_tokens).toBeLessThanOrEqual(6000);
  });
});
