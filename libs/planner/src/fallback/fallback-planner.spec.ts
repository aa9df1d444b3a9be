import { BUILTIN_TOOL_DEFINITIONS, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { CatalogIndex } from '../knowledge/catalog-index';
import { PlanValidator } from '../plan/plan-validator';
import { FallbackPlanner } from './fallback-planner';
import { analyseQuestion } from './question-analysis';

const OPS_TOOL_DEFINITIONS = [...BUILTIN_TOOL_DEFINITIONS];
const OPS_MAPPINGS = OPS_KEYWORD_MAPPINGS;

const NOW = new Date('2026-11-22T09:00:00Z');
const catalog = new CatalogIndex(OPS_CATALOG);
const plan = (query: string, mappings = OPS_MAPPINGS) =>
  new FallbackPlanner(null, { trainSynchronously: true }).plan({
    query,
    tools: OPS_TOOL_DEFINITIONS,
    catalog,
    mappings,
    now: NOW,
    maxLimit: 100,
  });
const step = (query: string, tool: string) => plan(query).plan.steps.find((s) => s.tool_type === tool);
/** The question with the tools its plan uses, so a failing case names its question. */
const toolsOf = (query: string) => ({ query, tools: plan(query).plan.steps.map((s) => s.tool_type) });

describe('FallbackPlanner', () => {
  it("produces the seed's plan for the seed question", () => {
    const { plan: result } = plan('지난 주 prod 환경의 서버들 중 CPU 사용률이 높은 top 5개를 보여줘');
    expect(result.intent).toBe('query_metrics');
    expect(result.language).toBe('ko');
    // metric_query filters on environment and type itself (its ci_filter): no lookup step first.
    expect(result.steps.map((s) => s.tool_type)).toEqual(['metric_query']);
    expect(result.steps[0].parameters).toEqual({
      metric_name: 'cpu_usage',
      time_range: { start: '2026-11-09T00:00:00.000Z', end: '2026-11-16T00:00:00.000Z' },
      ci_filter: { environment: 'prod', ci_type: 'server' },
      top_n: 5,
      order: 'desc',
    });
    expect(result.steps.every((s) => !s.depends_on)).toBe(true);
    const validation = new PlanValidator().validate(result, {
      tools: OPS_TOOL_DEFINITIONS,
      catalog,
      maxLimit: 100,
      maxSteps: 8,
    });
    expect(validation.errors).toEqual([]);
    expect(validation.plan?.steps[0].parameters.agg).toBe('avg');
  });

  it('plans the same question in English the same way', () => {
    const steps = plan('Show the top 5 prod servers by CPU usage last week').plan.steps;
    expect(steps.map((s) => s.tool_type)).toEqual(['metric_query']);
    expect(steps[0].parameters).toMatchObject({
      metric_name: 'cpu_usage',
      top_n: 5,
      ci_filter: { environment: 'prod' },
    });
  });

  it.each([
    [
      '어제 메모리 평균',
      {
        metric_name: 'memory_usage',
        agg: 'avg',
        time_range: { start: '2026-11-21T00:00:00.000Z', end: '2026-11-22T00:00:00.000Z' },
      },
    ],
    [
      'max disk read in the last 6 hours',
      {
        metric_name: 'disk_io_read',
        agg: 'max',
        time_range: { start: '2026-11-22T03:00:00.000Z', end: '2026-11-22T09:00:00.000Z' },
      },
    ],
    [
      '최근 24시간 CPU 사용률 p95 상위 3개',
      {
        metric_name: 'cpu_usage',
        agg: 'p95',
        top_n: 3,
        time_range: { start: '2026-11-21T09:00:00.000Z', end: '2026-11-22T09:00:00.000Z' },
      },
    ],
    [
      'CPU usage from 2026-11-01 to 2026-11-03 hourly',
      { bucket: '1h', time_range: { start: '2026-11-01T00:00:00.000Z', end: '2026-11-04T00:00:00.000Z' } },
    ],
    [
      'staging 서버 중 CPU 사용률이 가장 낮은 서버',
      { top_n: 1, order: 'asc', ci_filter: { environment: 'staging', ci_type: 'server' } },
    ],
  ])('reads metric parameters from %s', (query, expected) => {
    expect(step(query, 'metric_query')?.parameters).toMatchObject(expected);
  });

  it('names items, kinds and views through the catalog and mappings', () => {
    expect(step('db-01의 지난 주 배포 이력', 'history_query')?.parameters).toMatchObject({
      ci_filter: { names: 'db-01' },
      kinds: ['deployment'],
    });
    expect(step('api-01 장애 시 영향 범위를 깊이 3까지 분석해줘', 'graph_analysis')?.parameters).toEqual({
      scope: 'api-01',
      view: 'impact',
      depth: 3,
    });
    expect(step('list stopped servers in dev', 'ci_lookup')?.parameters).toEqual({
      filters: { ci_type: 'server', environment: 'dev', status: 'stopped' },
    });
    expect(step('DB 장애 복구 절차 문서를 찾아줘', 'document_search')?.parameters).toEqual({
      query: 'DB 장애 복구 절차 문서를 찾아줘',
    });
  });

  it('feeds the ids found by a graph step into the steps after it', () => {
    const steps = plan('web-01이 의존하는 CI들의 최근 24시간 CPU 사용률').plan.steps;
    expect(steps.map((s) => s.tool_type)).toEqual(['graph_analysis', 'metric_query']);
    expect(steps[1]).toMatchObject({
      depends_on: ['s1'],
      parameters: { ci_ids: { $ref: 's1', path: 'nodes.id' } },
    });
  });

  it('plans no tool for questions that need none', () => {
    for (const query of ['안녕하세요', 'thanks, that is all'])
      expect(plan(query).plan).toMatchObject({ intent: 'general', steps: [] });
  });

  it('keeps a tool whose required input the question does not give, asking for it (needs_input), and says so', () => {
    const result = plan('show the dependency graph');
    expect(result.plan.steps).toEqual([
      expect.objectContaining({ tool_type: 'graph_analysis', needs_input: ['scope'] }),
    ]);
    expect(result.warnings.join(' ')).toMatch(/graph_analysis: .* scope; asked for/);
    // The validator accepts the step: the missing input is asked for, not an invalid plan.
    const validation = new PlanValidator().validate(result.plan, {
      tools: OPS_TOOL_DEFINITIONS,
      catalog,
      maxLimit: 100,
      maxSteps: 8,
    });
    expect(validation.valid).toBe(true);
  });

  it('without mappings still uses literal catalog values and metric names', () => {
    const steps = plan('avg cpu_usage of prod servers today', { mappings: [] }).plan.steps;
    expect(steps.find((s) => s.tool_type === 'metric_query')?.parameters).toMatchObject({
      metric_name: 'cpu_usage',
      ci_filter: { environment: 'prod', ci_type: 'server' },
    });
  });

  it('plans each part of a two-part question, with the items of one feeding the other', () => {
    const both = plan('list prod databases and find the backup runbook').plan.steps.map((s) => s.tool_type);
    expect(both.sort()).toEqual(['ci_lookup', 'document_search']);
    const chained = plan('stopped stuff in dev and what it depends on').plan.steps;
    expect(chained.map((s) => s.tool_type)).toEqual(['ci_lookup', 'graph_analysis']);
    expect(chained[1].parameters.scope).toEqual({ $ref: 's1', path: 'items.id' });
  });

  it('reads dependents as the impact view and topics as lookup keywords', () => {
    expect(step('which services depend on prod-payment-db', 'graph_analysis')?.parameters).toMatchObject({
      scope: 'prod-payment-db',
      view: 'impact',
    });
    expect(step('what does prod-payment-api depend on', 'graph_analysis')?.parameters.view).toBe(
      'dependency',
    );
    expect(step('cpu of all the payment servers last week', 'ci_lookup')?.parameters).toMatchObject({
      keywords: ['payment'],
    });
  });

  it('reads spelled-out spans, buckets, severities and one-number aggregates', () => {
    expect(
      step('error rate on prod-order-api in 30 min buckets since midnight', 'metric_query')?.parameters,
    ).toMatchObject({
      bucket: '30m',
      time_range: { start: '2026-11-22T00:00:00.000Z', end: '2026-11-22T09:00:00.000Z' },
    });
    expect(step('major+ incidents over the past two days', 'history_query')?.parameters).toMatchObject({
      severities: ['major', 'critical'],
      time_range: { start: '2026-11-20T09:00:00.000Z', end: '2026-11-22T09:00:00.000Z' },
    });
    expect(
      step('give me one number: avg db connections across prod dbs', 'metric_query')?.parameters,
    ).toMatchObject({
      group_by: 'none',
      agg: 'avg',
    });
  });

  it('reads an availability zone as a region filter, not an item name', () => {
    expect(step('memory of ap-northeast-2b servers today', 'metric_query')?.parameters.ci_filter).toEqual({
      ci_type: 'server',
      attributes: { region: 'ap-northeast-2b' },
    });
  });

  it('looks up items by a Korean topic joined to a type (쪽, 팀, 관련)', () => {
    const steps = plan('결제 쪽 서비스들 찾아서 오늘 에러율').plan.steps;
    expect(steps.map((s) => s.tool_type)).toEqual(['ci_lookup', 'metric_query']);
    expect(steps[0].parameters.keywords).toEqual(['결제']);
    expect(steps[1].parameters.ci_ids).toEqual({ $ref: 's1', path: 'items.id' });
  });

  it('answers a question naming an item even when no tool is sure', () => {
    expect(step('prod-user-api 요청수 어제 기준으로', 'metric_query')?.parameters).toMatchObject({
      metric_name: 'request_rate',
      ci_filter: { names: 'prod-user-api' },
    });
  });

  it('reads a parenthetical as part of its clause: a spec question asks for no metric', () => {
    expect(plan('prod-order-db-01 spec (cores, memory)').plan.steps.map((s) => s.tool_type)).toEqual([
      'ci_lookup',
    ]);
  });

  it('plans no tool for definitions, translations and writing requests, even in ops words', () => {
    for (const query of [
      "translate 'rollback' into Korean",
      'what does the word latency mean',
      "'배포'를 일본어로 뭐라고 해?",
      '다음 주 점검 공지 메일 초안 써줘',
    ])
      expect({ query, steps: plan(query).plan.steps }).toEqual({ query, steps: [] });
    expect(step('mean cpu of prod servers today', 'metric_query')?.parameters.agg).toBe('avg');
  });

  it('reads typos of known words as the words, and compounds as their words, not as item names', () => {
    expect(
      step('memroy of prod-order-db-01 in the last 6 hours', 'metric_query')?.parameters.metric_name,
    ).toBe('memory_usage');
    expect(step('dev services by erorr rate, worst 3', 'metric_query')?.parameters).toMatchObject({
      metric_name: 'error_rate',
      top_n: 3,
    });
    const compound = plan('the lowest-memory server in prod today').plan.steps;
    expect(compound.map((s) => s.tool_type)).toEqual(['metric_query']);
    expect(compound[0].parameters).toMatchObject({ metric_name: 'memory_usage', top_n: 1 });
    expect(compound[0].parameters.ci_filter).not.toHaveProperty('names');
  });

  it("looks up a team's items by the team's name, which is not vocabulary", () => {
    const korean = plan('알림팀 서버들 어제 메모리').plan.steps;
    expect(korean.map((s) => s.tool_type)).toEqual(['ci_lookup', 'metric_query']);
    expect(korean[0].parameters.keywords).toEqual(['알림']);
    expect(korean[1].parameters).not.toHaveProperty('kinds');
    const english = plan('which servers does the billing team have').plan.steps;
    expect(english.map((s) => s.tool_type)).toEqual(['ci_lookup']);
    expect(english[0].parameters.keywords).toEqual(['billing']);
    // The owning team is a field of the record, not a team's name; "on-call" is no team named "call".
    expect(plan('prod-order-db 담당팀 알려줘').plan.steps.map((s) => s.tool_type)).toEqual(['ci_lookup']);
    const onCall = analyseQuestion(
      'prod-order-db cpu today, for the on-call team',
      OPS_TOOL_DEFINITIONS,
      catalog,
      OPS_MAPPINGS,
      NOW,
    );
    expect(onCall.itemTopics).toEqual([]);
  });

  it('reads "what does X need" and "where does X run" as X\'s own dependencies', () => {
    for (const query of ['what does prod-order-api need', 'where does prod-order-api run'])
      expect(toolsOf(query)).toEqual({ query, tools: ['graph_analysis'] });
  });

  it('reads a list of events as history, not as an item list', () => {
    const steps = plan('지난주 운영 배포 목록').plan.steps;
    expect(steps.map((s) => s.tool_type)).toEqual(['history_query']);
    expect(steps[0].parameters).toMatchObject({ kinds: ['deployment'], ci_filter: { environment: 'prod' } });
    expect(plan('staging alert list from today').plan.steps.map((s) => s.tool_type)).toEqual([
      'history_query',
    ]);
  });

  it('sends a procedure question naming the documents to them alone, even with a type or an aggregate word', () => {
    for (const query of [
      'the high cpu runbook - what does it say about servers behind the load balancer?',
      '커넥션 풀 최대 크기는 몇으로 하라고 돼있어?',
    ])
      expect(toolsOf(query)).toEqual({ query, tools: ['document_search'] });
  });

  it("chooses a tenant's tool on more than one word of its description, and not beside a better-supported one", () => {
    const tool = (name: string, description: string) => ({
      name,
      description,
      kind: 'http',
      input_schema: { type: 'object', properties: { plate_no: { type: 'string' } } },
      output_schema: null,
      has_side_effects: false,
      timeout_ms: 1000,
      source: 'dynamic' as const,
      version: 1,
    });
    const tools = [
      tool(
        'rate_quote',
        'Rental price quote: car class and number of days, insurance option. Returns the total.',
      ),
      tool(
        'vehicle_status',
        'Status of one car by plate number: branch, mileage, fuel level, last inspection.',
      ),
      tool('fine_lookup', 'Traffic fines and unpaid tolls on company cars, by plate number.'),
    ];
    const chosen = (query: string) =>
      new FallbackPlanner(null, { trainSynchronously: true })
        .plan({ query, tools, catalog: new CatalogIndex(null), mappings: null, now: NOW, maxLimit: 100 })
        .plan.steps.map((s) => s.tool_type);
    // One word of a description ("days") is no evidence that the question needs the tool.
    expect(chosen("hey, how's your day going?")).toEqual([]);
    expect(chosen('price quote for a rental car, 3 days, with insurance')).toEqual(['rate_quote']);
    // A word the second tool shares ("car") does not pull it in beside the tool the question is about.
    expect(chosen('fuel level and mileage of car 12가3456')).toEqual(['vehicle_status']);
  });

  it('plans no tool for a how-to question about something else', () => {
    expect(plan('how do I reverse a string in python').plan.steps).toEqual([]);
    expect(plan('파이썬에서 리스트 정렬 어떻게 해?').plan.steps).toEqual([]);
  });

  it("reads each tool's time range in the part of the question it answers", () => {
    const steps = plan('prod-payment-api 최근 1시간 에러율이랑 어제 배포 내역 같이 보여줘').plan.steps;
    const range = (tool: string) => steps.find((s) => s.tool_type === tool)?.parameters.time_range;
    expect(range('metric_query')).toEqual({
      start: '2026-11-22T08:00:00.000Z',
      end: '2026-11-22T09:00:00.000Z',
    });
    expect(range('history_query')).toEqual({
      start: '2026-11-21T00:00:00.000Z',
      end: '2026-11-22T00:00:00.000Z',
    });
  });
});
