/** The closed vocabularies of the OPS data: the catalog, the tool schemas and the seeder share them. */
export const CI_TYPES = ['application', 'service', 'server', 'database'] as const;
export type CiType = (typeof CI_TYPES)[number];

export const CI_ENVIRONMENTS = ['prod', 'staging', 'dev'] as const;
export type CiEnvironment = (typeof CI_ENVIRONMENTS)[number];

export const CI_STATUSES = ['running', 'degraded', 'stopped', 'maintenance'] as const;
export type CiStatus = (typeof CI_STATUSES)[number];

export const RELATION_TYPES = ['runs_on', 'depends_on', 'part_of'] as const;
export type RelationType = (typeof RELATION_TYPES)[number];

export const EVENT_KINDS = ['change', 'incident', 'deployment', 'maintenance', 'alert'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const EVENT_SEVERITIES = ['info', 'warning', 'major', 'critical'] as const;
export type EventSeverity = (typeof EVENT_SEVERITIES)[number];

/** Metric names with their unit and the item types that report them. */
export const METRICS = {
  cpu_usage: { unit: 'percent', ci_types: ['server', 'database'], description: 'CPU utilisation' },
  memory_usage: { unit: 'percent', ci_types: ['server', 'database'], description: 'Memory utilisation' },
  disk_io_read: { unit: 'MB/s', ci_types: ['server'], description: 'Disk read throughput' },
  disk_io_write: { unit: 'MB/s', ci_types: ['server'], description: 'Disk write throughput' },
  network_in: { unit: 'Mbit/s', ci_types: ['server'], description: 'Inbound network traffic' },
  network_out: { unit: 'Mbit/s', ci_types: ['server'], description: 'Outbound network traffic' },
  db_connections: { unit: 'count', ci_types: ['database'], description: 'Open database connections' },
  request_rate: { unit: 'req/s', ci_types: ['service'], description: 'Requests per second' },
  error_rate: { unit: 'percent', ci_types: ['service'], description: 'Share of failed requests' },
  latency_p95_ms: { unit: 'ms', ci_types: ['service'], description: '95th percentile response time' },
} as const satisfies Record<string, { unit: string; ci_types: CiType[]; description: string }>;
export type MetricName = keyof typeof METRICS;
export const METRIC_NAMES = Object.keys(METRICS) as MetricName[];

/** Sample resolutions kept in `ops_metric_samples.step_seconds`: raw 5-minute samples and hourly ones. */
export const METRIC_STEPS = { fine: 300, hourly: 3600 } as const;
