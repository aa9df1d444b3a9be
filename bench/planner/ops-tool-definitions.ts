import type { CatalogContent, MappingContent } from '@app/asset-registry';
import type { JsonSchema, ToolDefinition } from '@app/tools';

/**
 * The OPS built-in tools as the planner sees them (names, descriptions, input schemas), the catalog
 * of the OPS tables and bilingual keyword mappings. Used by the planner evaluation and the tests.
 */
const TIME_RANGE: JsonSchema = {
  type: 'object',
  description: 'Half-open UTC interval [start, end).',
  properties: {
    start: { type: 'string', format: 'date-time' },
    end: { type: 'string', format: 'date-time' },
  },
  required: ['start', 'end'],
  additionalProperties: false,
};

const FILTERS: JsonSchema = {
  type: 'object',
  description: 'Equality filters on CI columns (see the catalog table "ci"); a list means any of.',
  'x-catalog-table': 'ci',
  additionalProperties: {
    anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }],
  },
};

const CI_IDS: JsonSchema = { type: 'array', items: { type: 'string' }, maxItems: 500 };

function builtin(name: string, description: string, input: JsonSchema, output: JsonSchema): ToolDefinition {
  return {
    name,
    description,
    tool_type: name,
    input_schema: input,
    output_schema: output,
    has_side_effects: false,
    timeout_ms: 5000,
    source: 'builtin',
  };
}

const CI_ITEM: JsonSchema = {
  type: 'object',
  properties: {
    ci_id: { type: 'string' },
    ci_name: { type: 'string' },
    ci_type: { type: 'string' },
    environment: { type: 'string' },
    status: { type: 'string' },
  },
};

export const OPS_TOOL_DEFINITIONS: ToolDefinition[] = [
  builtin(
    'ci_lookup',
    'CI 인프라 자산 조회: 서버, 데이터베이스, 네트워크 장비 같은 구성 항목(CI)을 이름, 유형, 환경, 상태로 찾아 목록으로 보여줍니다. ' +
      'Look up configuration items (servers, databases, network devices, hosts) by name, type, environment or status and list them.',
    {
      type: 'object',
      properties: {
        keywords: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          default: [],
          description: 'Words matched against CI names.',
        },
        ci_ids: CI_IDS,
        filters: FILTERS,
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
      },
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { items: { type: 'array', items: CI_ITEM }, total: { type: 'integer' } },
      required: ['items', 'total'],
    },
  ),
  builtin(
    'metric_query',
    '메트릭 데이터 조회: CPU 사용률, 메모리 사용률, 디스크 I/O 같은 성능 지표를 기간별로 집계(평균, 최대, 최소, 합계, p95)하고 항목별 순위(top N)와 시간대별 추이를 계산합니다. ' +
      'Query performance metrics (CPU, memory, disk I/O usage) over a time range: aggregate, rank items (top N) and bucket into trends.',
    {
      type: 'object',
      properties: {
        metric: {
          type: 'string',
          'x-catalog-column': 'metrics.metric_name',
          description: 'Metric name from the catalog.',
        },
        aggregation: { type: 'string', enum: ['avg', 'max', 'min', 'sum', 'p95'], default: 'avg' },
        time_range: TIME_RANGE,
        ci_ids: CI_IDS,
        filters: FILTERS,
        group_by: { type: 'string', enum: ['ci', 'none'], default: 'ci' },
        top_n: { type: 'integer', minimum: 1, maximum: 100 },
        order: { type: 'string', enum: ['desc', 'asc'], default: 'desc' },
        bucket: { type: 'string', enum: ['5m', '1h', '1d'] },
      },
      required: ['metric', 'time_range'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        metric: { type: 'string' },
        aggregation: { type: 'string' },
        groups: {
          type: 'array',
          items: {
            type: 'object',
            properties: { ci_id: { type: 'string' }, ci_name: { type: 'string' }, value: { type: 'number' } },
          },
        },
      },
      required: ['groups'],
    },
  ),
  builtin(
    'history_query',
    '이력 조회: 배포, 장애, 변경, 알람, 점검 같은 CI 이벤트 이력을 기간, 대상 CI, 종류로 조회합니다. ' +
      'Query the event history of CIs (deployments, incidents, changes, alerts, maintenance) by time range, item and kind.',
    {
      type: 'object',
      properties: {
        time_range: TIME_RANGE,
        item: { type: 'string', minLength: 1, description: 'CI name or id.' },
        ci_ids: CI_IDS,
        kind: { type: 'string', 'x-catalog-column': 'history.kind' },
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
      },
      required: ['time_range'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        events: {
          type: 'array',
          items: {
            type: 'object',
            properties: { ci_id: { type: 'string' }, kind: { type: 'string' }, summary: { type: 'string' } },
          },
        },
        total: { type: 'integer' },
      },
      required: ['events'],
    },
  ),
  builtin(
    'graph_analysis',
    '구성도/의존성/영향도 분석: CI 간 관계 그래프에서 구성(composition), 의존성(dependency), 장애 시 영향 범위(impact)를 지정한 깊이까지 분석합니다. ' +
      'Analyse the relationship graph around a CI: its composition, its dependencies, or the impact (blast radius) of a failure, up to a depth.',
    {
      type: 'object',
      properties: {
        scope: { type: 'string', minLength: 1, description: 'CI name or id at the centre of the analysis.' },
        view: { type: 'string', enum: ['composition', 'dependency', 'impact'] },
        depth: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
      },
      required: ['scope', 'view'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        nodes: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              ci_id: { type: 'string' },
              ci_name: { type: 'string' },
              distance: { type: 'integer' },
            },
          },
        },
        edges: { type: 'array' },
      },
      required: ['nodes'],
    },
  ),
  builtin(
    'document_search',
    '문서 검색: 운영 매뉴얼, 런북, 장애 대응 절차, 정책 문서를 키워드와 의미 기반(하이브리드)으로 검색합니다. ' +
      'Search operational documents (manuals, runbooks, procedures, guides, policies) by keyword and meaning.',
    {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1 },
        top_k: { type: 'integer', minimum: 1, maximum: 50, default: 5 },
        search_type: { type: 'string', enum: ['hybrid', 'vector', 'keyword'], default: 'hybrid' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        results: {
          type: 'array',
          items: {
            type: 'object',
            properties: { title: { type: 'string' }, snippet: { type: 'string' }, score: { type: 'number' } },
          },
        },
      },
      required: ['results'],
    },
  ),
];

export const OPS_CATALOG: CatalogContent = {
  source: { kind: 'internal', schema: 'ops' },
  tables: [
    {
      name: 'ci',
      description: '구성 항목(서버, DB, 네트워크 장비) / configuration items',
      primary_key: ['ci_id'],
      columns: [
        { name: 'ci_id', type: 'text', description: 'CI 고유 ID (sys-xxx 형식)', primary_key: true },
        {
          name: 'ci_name',
          type: 'text',
          description: 'CI 이름 (web-01 등)',
          aliases: ['이름', 'name', 'host'],
        },
        {
          name: 'ci_type',
          type: 'text',
          description: 'CI 유형',
          enum_values: ['server', 'database', 'network', 'storage', 'application'],
          aliases: ['유형', 'type'],
        },
        {
          name: 'environment',
          type: 'text',
          description: '환경 (prod, staging, dev)',
          enum_values: ['prod', 'staging', 'dev'],
          aliases: ['환경', 'env'],
        },
        {
          name: 'status',
          type: 'text',
          description: '상태',
          enum_values: ['running', 'stopped', 'error', 'maintenance'],
          aliases: ['상태'],
        },
        { name: 'owner', type: 'text', description: '담당 팀' },
        { name: 'location', type: 'text', description: '위치 (IDC, 리전)' },
      ],
    },
    {
      name: 'metrics',
      description: '성능 메트릭 / performance metrics',
      columns: [
        { name: 'ci_id', type: 'text', description: '대상 CI' },
        {
          name: 'metric_name',
          type: 'text',
          description: '메트릭 이름',
          enum_values: ['cpu_usage', 'memory_usage', 'disk_io_read', 'disk_io_write'],
        },
        { name: 'value', type: 'numeric', description: '메트릭 값 (%, MB/s)' },
        { name: 'timestamp', type: 'timestamptz', description: '수집 시각' },
      ],
      references: [{ columns: ['ci_id'], table: 'ci', referenced_columns: ['ci_id'] }],
    },
    {
      name: 'history',
      description: 'CI 이벤트 이력 / event history',
      columns: [
        { name: 'event_id', type: 'text', primary_key: true },
        { name: 'ci_id', type: 'text' },
        {
          name: 'kind',
          type: 'text',
          description: '이벤트 종류',
          enum_values: ['deployment', 'incident', 'change', 'alert', 'maintenance'],
        },
        { name: 'severity', type: 'text', enum_values: ['critical', 'major', 'minor', 'info'] },
        { name: 'summary', type: 'text' },
        { name: 'occurred_at', type: 'timestamptz' },
      ],
      references: [{ columns: ['ci_id'], table: 'ci', referenced_columns: ['ci_id'] }],
    },
    {
      name: 'relations',
      description: 'CI 간 관계 / relations between CIs',
      columns: [
        { name: 'source_ci_id', type: 'text' },
        { name: 'target_ci_id', type: 'text' },
        {
          name: 'relation_type',
          type: 'text',
          enum_values: ['depends_on', 'runs_on', 'contains', 'connects_to'],
        },
      ],
    },
  ],
};

const metric = (keyword: string, value: string) => ({ keyword, value, kind: 'metric' as const });
const filter = (keyword: string, field: string, value: string) => ({
  keyword,
  value,
  field,
  kind: 'filter' as const,
});
const other = (keyword: string, field: string, value: string) => ({
  keyword,
  value,
  field,
  kind: 'other' as const,
});

export const OPS_MAPPINGS: MappingContent = {
  mappings: [
    metric('CPU 사용률', 'cpu_usage'),
    metric('CPU', 'cpu_usage'),
    metric('씨피유', 'cpu_usage'),
    metric('processor', 'cpu_usage'),
    metric('메모리 사용률', 'memory_usage'),
    metric('메모리', 'memory_usage'),
    metric('memory', 'memory_usage'),
    metric('RAM', 'memory_usage'),
    metric('디스크 읽기', 'disk_io_read'),
    metric('disk read', 'disk_io_read'),
    metric('디스크 쓰기', 'disk_io_write'),
    metric('disk write', 'disk_io_write'),
    filter('운영', 'environment', 'prod'),
    filter('production', 'environment', 'prod'),
    filter('스테이징', 'environment', 'staging'),
    filter('개발', 'environment', 'dev'),
    filter('development', 'environment', 'dev'),
    filter('서버', 'ci_type', 'server'),
    filter('데이터베이스', 'ci_type', 'database'),
    filter('DB', 'ci_type', 'database'),
    filter('네트워크', 'ci_type', 'network'),
    filter('스토리지', 'ci_type', 'storage'),
    filter('중지', 'status', 'stopped'),
    filter('멈춘', 'status', 'stopped'),
    filter('down', 'status', 'stopped'),
    filter('에러 상태', 'status', 'error'),
    filter('점검 중', 'status', 'maintenance'),
    filter('배포', 'kind', 'deployment'),
    filter('deploy', 'kind', 'deployment'),
    filter('장애 이력', 'kind', 'incident'),
    filter('장애가 발생', 'kind', 'incident'),
    filter('변경', 'kind', 'change'),
    filter('알람', 'kind', 'alert'),
    filter('경보', 'kind', 'alert'),
    filter('outage', 'kind', 'incident'),
    other('구성도', 'view', 'composition'),
    other('구성 요소', 'view', 'composition'),
    other('components', 'view', 'composition'),
    other('의존', 'view', 'dependency'),
    other('depend', 'view', 'dependency'),
    other('영향', 'view', 'impact'),
    other('affected', 'view', 'impact'),
    other('blast radius', 'view', 'impact'),
    { keyword: '매뉴얼', value: 'document_search', kind: 'tool' },
    { keyword: '런북', value: 'document_search', kind: 'tool' },
    { keyword: '절차', value: 'document_search', kind: 'tool' },
    { keyword: '가이드', value: 'document_search', kind: 'tool' },
    { keyword: 'how do i', value: 'document_search', kind: 'tool' },
    { keyword: 'runbook', value: 'document_search', kind: 'tool' },
    { keyword: 'manual', value: 'document_search', kind: 'tool' },
    { keyword: 'procedure', value: 'document_search', kind: 'tool' },
    { keyword: 'guide', value: 'document_search', kind: 'tool' },
    { keyword: 'documentation', value: 'document_search', kind: 'tool' },
    { keyword: '평균', value: 'avg', kind: 'aggregation' },
  ],
};
