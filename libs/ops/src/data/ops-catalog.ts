import type { CatalogContent, KeywordMapping, MappingContent } from '@app/asset-registry';
import {
  CI_ENVIRONMENTS,
  CI_STATUSES,
  CI_TYPES,
  EVENT_KINDS,
  EVENT_SEVERITIES,
  METRIC_NAMES,
  METRICS,
  RELATION_TYPES,
} from './ops-vocabulary';

/**
 * The OPS tables as tools and `sql` tool assets see them: one relation per table, already filtered to
 * the caller's tenant (so no `tenant_id` column). Names here are what an `sql` tool query may use.
 */
export const OPS_CATALOG: CatalogContent = {
  source: { kind: 'internal' },
  tables: [
    {
      name: 'configuration_items',
      description:
        'Configuration items (CI, 구성 항목): applications, services, servers and databases in every environment. 서버/서비스/데이터베이스 자산 목록.',
      primary_key: ['id'],
      columns: [
        { name: 'id', type: 'uuid', primary_key: true, description: 'Item id' },
        {
          name: 'name',
          type: 'varchar',
          description: 'Unique item name, e.g. prod-payment-api-01, prod-payment-db',
          aliases: ['이름', '호스트명', 'hostname', 'server name', '서버명'],
        },
        {
          name: 'ci_type',
          type: 'varchar',
          description: 'Kind of item',
          enum_values: [...CI_TYPES],
          aliases: ['type', '유형', '종류', 'CI 타입'],
        },
        {
          name: 'environment',
          type: 'varchar',
          description: 'Deployment environment: prod (운영), staging (스테이징), dev (개발)',
          enum_values: [...CI_ENVIRONMENTS],
          aliases: ['env', '환경'],
        },
        {
          name: 'status',
          type: 'varchar',
          description: 'Operational status',
          enum_values: [...CI_STATUSES],
          aliases: ['상태', 'state'],
        },
        {
          name: 'owner',
          type: 'varchar',
          nullable: true,
          description: 'Owning team',
          aliases: ['담당', '담당팀', 'team'],
        },
        {
          name: 'tags',
          type: 'text[]',
          description: 'Free-form tags (e.g. payment, critical, tier-1)',
          aliases: ['태그'],
        },
        {
          name: 'attributes',
          type: 'jsonb',
          description: 'Type-specific attributes: region, os, cpu_cores, memory_gb, engine, version, port',
          aliases: ['속성', 'spec', '사양'],
        },
        {
          name: 'description',
          type: 'text',
          nullable: true,
          description: 'What the item is for',
          aliases: ['설명'],
        },
        { name: 'created_at', type: 'timestamptz', description: 'When the item was registered' },
        { name: 'updated_at', type: 'timestamptz', description: 'Last change to the item record' },
      ],
    },
    {
      name: 'metrics',
      description:
        'Performance metric samples (성능 지표, 메트릭) per item over time: hourly for 30 days (step_seconds 3600) and every 5 minutes for the last 24 hours (step_seconds 300). Aggregate one resolution at a time.',
      primary_key: ['ci_id', 'metric_name', 'step_seconds', 'ts'],
      columns: [
        { name: 'ci_id', type: 'uuid', description: 'The measured item (configuration_items.id)' },
        {
          name: 'metric_name',
          type: 'varchar',
          description: `Metric: ${METRIC_NAMES.map((m) => `${m} (${METRICS[m].unit})`).join(', ')}`,
          enum_values: [...METRIC_NAMES],
          aliases: ['metric', '메트릭', '지표'],
        },
        {
          name: 'step_seconds',
          type: 'integer',
          description: 'Sample resolution in seconds: 300 (5-minute) or 3600 (hourly)',
          enum_values: ['300', '3600'],
          aliases: ['resolution', '해상도'],
        },
        {
          name: 'ts',
          type: 'timestamptz',
          description: 'Sample time (start of the interval, UTC)',
          aliases: ['timestamp', '시간', '시각'],
        },
        {
          name: 'value',
          type: 'double precision',
          description: 'Sample value in the metric unit',
          aliases: ['값', '수치'],
        },
      ],
      references: [{ columns: ['ci_id'], table: 'configuration_items', referenced_columns: ['id'] }],
    },
    {
      name: 'history_events',
      description:
        'History of what happened to items (이력): changes (변경), incidents (장애), deployments (배포), maintenance (점검) and alerts (알림).',
      primary_key: ['id'],
      columns: [
        { name: 'id', type: 'uuid', primary_key: true, description: 'Event id' },
        {
          name: 'ci_id',
          type: 'uuid',
          nullable: true,
          description: 'The item concerned (configuration_items.id)',
        },
        {
          name: 'occurred_at',
          type: 'timestamptz',
          description: 'When it happened (UTC)',
          aliases: ['발생 시각', 'time', '시간'],
        },
        {
          name: 'kind',
          type: 'varchar',
          description: 'Kind of event',
          enum_values: [...EVENT_KINDS],
          aliases: ['유형', 'type'],
        },
        {
          name: 'severity',
          type: 'varchar',
          description: 'Severity',
          enum_values: [...EVENT_SEVERITIES],
          aliases: ['심각도', '등급'],
        },
        { name: 'title', type: 'varchar', description: 'One-line summary', aliases: ['제목'] },
        {
          name: 'details',
          type: 'text',
          nullable: true,
          description: 'Longer description',
          aliases: ['내용', '상세'],
        },
        { name: 'attributes', type: 'jsonb', description: 'Extra fields: version, ticket, duration_minutes' },
      ],
      references: [{ columns: ['ci_id'], table: 'configuration_items', referenced_columns: ['id'] }],
    },
    {
      name: 'ci_relations',
      description:
        'Directed relations between items (관계, 의존성): source runs_on target (호스트), source depends_on target (의존), source part_of target (소속/구성).',
      primary_key: ['source_id', 'target_id', 'relation_type'],
      columns: [
        { name: 'source_id', type: 'uuid', description: 'The item the relation starts from' },
        { name: 'target_id', type: 'uuid', description: 'The item it points to' },
        {
          name: 'relation_type',
          type: 'varchar',
          description: 'runs_on: hosted on; depends_on: needs; part_of: belongs to',
          enum_values: [...RELATION_TYPES],
          aliases: ['관계 유형', 'relation'],
        },
      ],
      references: [
        { columns: ['source_id'], table: 'configuration_items', referenced_columns: ['id'] },
        { columns: ['target_id'], table: 'configuration_items', referenced_columns: ['id'] },
      ],
    },
  ],
};

const metric = (value: string, ...keywords: string[]): KeywordMapping[] =>
  keywords.map((keyword) => ({ keyword, value, kind: 'metric' }));
const filter = (field: string, value: string, ...keywords: string[]): KeywordMapping[] =>
  keywords.map((keyword) => ({ keyword, value, kind: 'filter', field }));
const aggregation = (value: string, ...keywords: string[]): KeywordMapping[] =>
  keywords.map((keyword) => ({ keyword, value, kind: 'aggregation' }));
export const TOOL_OUTPUT_NOUN = 'names what the tool returns';
const tool = (value: string, ...keywords: string[]): KeywordMapping[] =>
  keywords.map((keyword) => ({ keyword, value, kind: 'tool' }));
/** Words naming what a tool returns ("runbook"): a one-part question naming them asks for that tool alone. */
const toolOutput = (value: string, ...keywords: string[]): KeywordMapping[] =>
  keywords.map((keyword) => ({ keyword, value, kind: 'tool', description: TOOL_OUTPUT_NOUN }));
const graphView = (value: string, ...keywords: string[]): KeywordMapping[] =>
  keywords.map((keyword) => ({ keyword, value, kind: 'other', field: 'view' }));
const other = (value: string, description: string, ...keywords: string[]): KeywordMapping[] =>
  keywords.map((keyword) => ({ keyword, value, kind: 'other', description }));

/** What users say (Korean and English) -> the values the OPS tools take. */
export const OPS_KEYWORD_MAPPINGS: MappingContent = {
  mappings: [
    ...metric('cpu_usage', 'CPU 사용률', 'CPU', 'cpu usage', 'cpu utilization', '씨피유', 'processor', 'cpu load'),
    ...metric('memory_usage', '메모리 사용률', '메모리', 'memory usage', 'memory', 'mem', 'memroy', 'memory utilization'),
    ...metric('disk_io_read', '디스크 읽기', '디스크 read', '디스크 리드', 'disk read', 'disk reads', 'disk io read', 'read iops', 'read throughput'),
    ...metric('disk_io_write', '디스크 쓰기', '디스크 write', '디스크 라이트', 'disk write', 'disk writes', 'disk io write', 'write iops', 'write throughput'),
    ...metric('network_in', '네트워크 수신', '네트워크 in', 'inbound traffic', 'network in', 'network ingress', 'ingress', '인바운드', 'inbound'),
    ...metric('network_out', '네트워크 송신', '네트워크 out', 'outbound traffic', 'network out', 'network egress', 'egress', '아웃바운드', 'outbound'),
    ...metric('db_connections', 'DB 커넥션', '커넥션', '커넥션 수', '연결 수', 'connections', 'db connections'),
    ...metric('request_rate', '요청 수', '요청량', '처리량', 'TPS', 'throughput', 'request rate', 'requests', 'traffic', 'RPS'),
    ...metric('error_rate', '에러율', '에러 율', '오류율', 'error rate', 'error rates', 'errors', '실패율'),
    ...metric('latency_p95_ms', '응답 시간', '응답시간', '지연', '레이턴시', 'latency', 'response time', 'p95 latency', 'slow'),
    ...filter('environment', 'prod', '운영', '운영계', '운영쪽', '프로덕션', 'prod', 'production'),
    ...filter('environment', 'staging', '스테이징', '검증', 'stg', 'staging'),
    ...filter('environment', 'dev', '개발', '개발계', 'dev', 'development'),
    ...filter('ci_type', 'server', '서버', 'server', 'servers', 'box', 'boxes', 'VM'),
    ...filter('ci_type', 'service', '서비스', 'service', 'services', 'API', '마이크로서비스'),
    ...filter('ci_type', 'database', '데이터베이스', 'DB', 'dbs', 'database', 'databases'),
    ...filter('ci_type', 'application', '애플리케이션', 'application', 'applications', '업무 시스템'),
    ...filter('status', 'running', '가동', '정상', 'running', 'up'),
    ...filter('status', 'degraded', '성능 저하', 'degraded'),
    ...filter('status', 'stopped', '중지', '정지', 'stopped', 'down'),
    ...filter('status', 'maintenance', '점검 중', '점검중', 'in maintenance', 'maintenance 상태', 'maintenance 야'),
    ...filter('kind', 'incident', '장애 이력', '장애 난', '장애난', '장애', '인시던트', 'incident', 'incidents', 'outage'),
    ...filter('kind', 'deployment', '배포', 'deployment', 'deploy', 'deploys', 'deployed', 'release', '릴리스'),
    ...filter('kind', 'change', '변경', 'change', 'changes', 'changed', '설정 변경'),
    ...filter('kind', 'maintenance', '점검 이력', '점검', '정기 점검', 'maintenance events', 'maintenance history', 'maintenance window'),
    ...filter('kind', 'alert', '알림', '알람', '경보', 'alert', 'alerts', 'alarm'),
    ...aggregation('avg', '평균', 'average', 'avg', 'mean'),
    ...aggregation('max', '최대', '최고', 'peak', 'max', 'maximum'),
    ...aggregation('min', '최소', '최저', 'min', 'minimum'),
    ...aggregation('sum', '합계', 'total', 'sum'),
    ...aggregation('count', 'sample count', '샘플 수'),
    ...aggregation('p95', '95 퍼센타일', 'p95', '95th percentile'),
    ...tool('ci_lookup', '목록', '스펙', 'spec', 'specs', 'cpu 코어', 'cpu cores', 'cores', '코어', '메모리 몇', 'ram', '담당팀', 'owner', 'owns', '몇 대', 'how many servers', 'next page'),
    ...tool('metric_query', '사용률', '추이', 'trend', 'usage'),
    ...tool('history_query', '이력', '히스토리', 'history', 'events', '이벤트', 'timeline', 'what happened', '무슨 일', 'what changed'),
    ...tool('graph_analysis', '구성도', '의존성', '영향도', '영향', 'dependency', 'dependencies', 'deps', 'impact', 'impacted', 'blast radius', 'topology', 'depend', 'depends', 'depending', 'running on', 'runs on', 'hosts running', 'host running', '돌아가', 'that need', 'services that need', '소속', 'part of', 'belong', '구성돼', '구성요소', 'component', 'components', 'inside', '필요로', '의존'),
    ...toolOutput(
      'document_search',
      '매뉴얼',
      '런북',
      '가이드',
      '문서',
      'runbook',
      'manual',
      'guide',
      'documentation',
      'docs',
    ),
    ...tool(
      'document_search',
      '절차',
      'procedure',
      'how do i',
      'how to',
      'how do we',
      'what do i do',
      'what to do',
      'what now',
      '방법',
      '어떻게 해',
      '어떻게 하',
      '뭐부터',
      'docs',
      'policy',
      'rollback',
      'roll back',
      '롤백',
      '배포 롤백',
      'migration',
      'migrations',
      '마이그레이션',
      '티켓',
      'ticket',
    ),
    ...other(
      'how_to',
      'asks for a procedure (documents answer it when the question is about the operated systems)',
      'how do i',
      'how to',
      'how do we',
      'what do i do',
      'what to do',
      'what now',
      'steps',
      '방법',
      '어떻게 해',
      '어떻게 하',
      '뭐부터',
    ),
    // Runbook topics: what the published runbooks are about (titles and headings).
    ...tool(
      'document_search',
      '롤백 절차',
      '롤백 기준',
      'rollback criteria',
      'roll back a bad deploy',
      'thread dump',
      'thread dumps',
      '스레드 덤프',
      'slow query',
      '슬로우 쿼리',
      'long running queries',
      'connection exhaustion',
      '커넥션 고갈',
      'connection pool',
      '커넥션 풀',
      'max connections',
      'too many connections',
      'pg_terminate_backend',
      'pg_cancel_backend',
      'escalation',
      '에스컬레이션',
      'SLO',
      'maintenance window',
      'certificate',
      '인증서',
      'TLS',
      'SSL',
      '레플리카',
      'replica',
      'load balancer',
      'drain',
    ),
    ...graphView('composition', '구성도', '구성 요소', '구성요소', '구성돼', '구성', 'components', 'component', 'composition', 'made of', 'inside'),
    ...graphView('dependency', '의존', '의존성', '필요로', 'depend', 'depends on', 'dependencies', 'dependency', 'deps', 'use'),
    ...graphView('impact', '영향', '영향도', '영향 범위', '영향받는', 'affected', 'impact', 'impacted', 'blast radius', '소속', 'part of', 'belong', 'belongs to', 'goes down', '죽으면', '장애나면', '장애 나면', '장애 시', '빠지면'),
    ...other('last_week', 'time_range.relative', '지난 주', '지난주', 'last week'),
    ...other('this_week', 'time_range.relative', '이번 주', '이번주', 'this week'),
    ...other('yesterday', 'time_range.relative', '어제', 'yesterday'),
    ...other('today', 'time_range.relative', '오늘', 'today'),
    ...other('last_24h', 'time_range.relative', '최근 24시간', '하루', 'last 24 hours'),
    ...other('last_7d', 'time_range.relative', '최근 7일', '일주일', 'last 7 days'),
    ...other('last_30d', 'time_range.relative', '최근 30일', '한 달', 'last 30 days'),
    ...other('desc', 'top-N order: highest first', '높은', 'top', '상위'),
    ...other('asc', 'top-N order: lowest first', '낮은 순', 'bottom', '하위'),
  ],
};
