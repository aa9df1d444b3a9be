/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-explicit-any -- stand-in tools read inputs the registry has already validated against their schemas */
import type { Tool, ToolContext, ToolDefinition, ToolOutput } from '@app/tools';
import { ToolError } from '@app/tools';
import { OPS_TOOL_DEFINITIONS } from './ops-tool-definitions';

/** A small, deterministic OPS data set (relative to `now`) that the stand-in tools query. */
export interface OpsCi {
  ci_id: string;
  ci_name: string;
  ci_type: string;
  environment: string;
  status: string;
}

const CIS: OpsCi[] = [
  ['sys-001', 'web-01', 'server', 'prod', 'running'],
  ['sys-002', 'web-02', 'server', 'prod', 'running'],
  ['sys-003', 'web-03', 'server', 'prod', 'running'],
  ['sys-004', 'api-01', 'server', 'prod', 'running'],
  ['sys-005', 'api-02', 'server', 'prod', 'error'],
  ['sys-006', 'batch-01', 'server', 'prod', 'running'],
  ['sys-007', 'db-01', 'database', 'prod', 'running'],
  ['sys-008', 'db-02', 'database', 'prod', 'maintenance'],
  ['sys-009', 'web-stg-01', 'server', 'staging', 'running'],
  ['sys-010', 'api-stg-01', 'server', 'staging', 'stopped'],
  ['sys-011', 'dev-01', 'server', 'dev', 'running'],
  ['sys-012', 'core-sw-01', 'network', 'prod', 'running'],
  ['sys-013', 'nas-01', 'storage', 'prod', 'running'],
  ['sys-014', 'shop-app', 'application', 'prod', 'running'],
].map(([ci_id, ci_name, ci_type, environment, status]) => ({ ci_id, ci_name, ci_type, environment, status }));

/** Average CPU level per CI; the others scale from it. */
const CPU_LEVEL: Record<string, number> = {
  'sys-001': 72,
  'sys-002': 55,
  'sys-003': 81,
  'sys-004': 64,
  'sys-005': 91,
  'sys-006': 38,
  'sys-007': 47,
  'sys-008': 22,
  'sys-009': 30,
  'sys-010': 5,
  'sys-011': 12,
  'sys-012': 18,
  'sys-013': 9,
  'sys-014': 33,
};

const RELATIONS: Array<[string, string, string]> = [
  ['sys-014', 'sys-001', 'runs_on'],
  ['sys-014', 'sys-002', 'runs_on'],
  ['sys-014', 'sys-003', 'runs_on'],
  ['sys-001', 'sys-004', 'depends_on'],
  ['sys-002', 'sys-004', 'depends_on'],
  ['sys-003', 'sys-005', 'depends_on'],
  ['sys-004', 'sys-007', 'depends_on'],
  ['sys-005', 'sys-007', 'depends_on'],
  ['sys-006', 'sys-008', 'depends_on'],
  ['sys-007', 'sys-013', 'depends_on'],
  ['sys-012', 'sys-001', 'connects_to'],
  ['sys-012', 'sys-004', 'connects_to'],
  ['sys-014', 'sys-004', 'contains'],
  ['sys-014', 'sys-007', 'contains'],
];

const DOCUMENTS = [
  {
    title: 'CPU 사용률 급증 대응 런북',
    text: 'cpu 사용률 급증 시 대응 절차 high cpu runbook top 프로세스 확인 스케일 아웃',
  },
  { title: 'DB 장애 복구 절차', text: 'database failover 장애 복구 절차 replication db 복구 backup restore' },
  {
    title: 'Deployment rollback guide',
    text: 'how to roll back a deployment 배포 롤백 가이드 canary release',
  },
  {
    title: '디스크 용량 부족 대응 매뉴얼',
    text: 'disk full 디스크 용량 정리 로그 삭제 매뉴얼 storage cleanup',
  },
  {
    title: 'On-call escalation policy',
    text: 'on-call escalation policy incident severity 장애 등급 보고 정책',
  },
];

const HOUR = 3_600_000;

function wave(seed: number, hour: number): number {
  return Math.sin(hour / 3 + seed) * 8 + Math.cos(hour / 7 + seed * 2) * 4;
}

export class OpsDataset {
  readonly cis = CIS;
  readonly documents = DOCUMENTS;
  readonly events: Array<{
    event_id: string;
    ci_id: string;
    kind: string;
    severity: string;
    summary: string;
    occurred_at: string;
  }> = [];

  constructor(readonly now: Date) {
    const kinds = ['deployment', 'incident', 'change', 'alert', 'maintenance'];
    for (let i = 0; i < 60; i += 1) {
      const ci = CIS[(i * 5) % CIS.length];
      const kind = kinds[i % kinds.length];
      this.events.push({
        event_id: `evt-${String(i + 1).padStart(3, '0')}`,
        ci_id: ci.ci_id,
        kind,
        severity: kind === 'incident' ? (i % 2 ? 'major' : 'critical') : 'info',
        summary: `${kind} on ${ci.ci_name}`,
        occurred_at: new Date(now.getTime() - (i * 11 + 3) * HOUR).toISOString(),
      });
    }
  }

  /** Hourly value of a metric for a CI at an hour offset back from now (deterministic). */
  value(ciId: string, metric: string, hoursAgo: number): number {
    const base = CPU_LEVEL[ciId] ?? 20;
    const seed = Number(ciId.slice(-3));
    const scale: Record<string, number> = {
      cpu_usage: 1,
      memory_usage: 0.8,
      disk_io_read: 1.6,
      disk_io_write: 1.2,
    };
    const shift: Record<string, number> = {
      cpu_usage: 0,
      memory_usage: 20,
      disk_io_read: 5,
      disk_io_write: 3,
    };
    const raw = base * (scale[metric] ?? 1) + (shift[metric] ?? 0) + wave(seed, hoursAgo);
    return Math.round(Math.max(0, Math.min(metric.includes('usage') ? 100 : 500, raw)) * 10) / 10;
  }

  resolve(nameOrId: string): OpsCi | undefined {
    const key = nameOrId.toLowerCase();
    return CIS.find((ci) => ci.ci_id === key || ci.ci_name === key);
  }

  matches(ci: OpsCi, filters: Record<string, unknown> | undefined, ids: string[] | undefined): boolean {
    if (ids && !ids.includes(ci.ci_id)) return false;
    for (const [field, wanted] of Object.entries(filters ?? {})) {
      const actual = (ci as unknown as Record<string, string | undefined>)[field] ?? '';
      const values = (Array.isArray(wanted) ? wanted : [wanted]).map(String);
      if (!values.includes(actual)) return false;
    }
    return true;
  }
}

type Runner = (input: Record<string, any>, data: OpsDataset) => ToolOutput;

function aggregate(values: number[], how: string): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const result =
    how === 'max'
      ? sorted[sorted.length - 1]
      : how === 'min'
        ? sorted[0]
        : how === 'sum'
          ? values.reduce((a, b) => a + b, 0)
          : how === 'p95'
            ? sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]
            : values.reduce((a, b) => a + b, 0) / values.length;
  return Math.round(result * 100) / 100;
}

function hoursIn(range: { start: string; end: string }, now: Date): number[] {
  const hours: number[] = [];
  for (let t = Date.parse(range.start); t < Date.parse(range.end); t += HOUR) {
    const ago = Math.floor((now.getTime() - t) / HOUR);
    if (ago >= 0 && ago < 24 * 90) hours.push(ago);
  }
  return hours;
}

const RUNNERS: Record<string, Runner> = {
  ci_lookup: (input, data) => {
    const keywords: string[] = (input.keywords ?? []).map((k: string) => k.toLowerCase());
    const items = data.cis.filter(
      (ci) =>
        data.matches(ci, input.filters, input.ci_ids) &&
        keywords.every((k) => ci.ci_name.includes(k) || ci.ci_id.includes(k)),
    );
    return { data: { items: items.slice(0, input.limit ?? 10), total: items.length } };
  },
  metric_query: (input, data) => {
    const cis = data.cis.filter((ci) => data.matches(ci, input.filters, input.ci_ids));
    const hours = hoursIn(input.time_range, data.now);
    const how = input.aggregation ?? 'avg';
    let groups = cis.map((ci) => ({
      ci_id: ci.ci_id,
      ci_name: ci.ci_name,
      value: aggregate(
        hours.map((h) => data.value(ci.ci_id, input.metric, h)),
        how,
      ),
      samples: hours.length,
    }));
    if ((input.group_by ?? 'ci') === 'none') {
      groups = [
        {
          ci_id: '*',
          ci_name: 'all',
          value: aggregate(
            groups.map((g) => g.value),
            how,
          ),
          samples: hours.length * cis.length,
        },
      ];
    }
    groups.sort((a, b) => ((input.order ?? 'desc') === 'desc' ? b.value - a.value : a.value - b.value));
    if (input.top_n) groups = groups.slice(0, input.top_n);
    return { data: { metric: input.metric, aggregation: how, time_range: input.time_range, groups } };
  },
  history_query: (input, data) => {
    const ci = input.item ? data.resolve(input.item) : undefined;
    if (input.item && !ci) throw new ToolError('NOT_FOUND', `No CI named ${input.item}.`);
    const start = Date.parse(input.time_range.start);
    const end = Date.parse(input.time_range.end);
    const events = data.events.filter((e) => {
      const at = Date.parse(e.occurred_at);
      return (
        at >= start &&
        at < end &&
        (!ci || e.ci_id === ci.ci_id) &&
        (!input.ci_ids || input.ci_ids.includes(e.ci_id)) &&
        (!input.kind || e.kind === input.kind)
      );
    });
    return { data: { events: events.slice(0, input.limit ?? 20), total: events.length } };
  },
  graph_analysis: (input, data) => {
    const root = data.resolve(input.scope);
    if (!root) throw new ToolError('NOT_FOUND', `No CI named ${input.scope}.`);
    const follow = (from: string): string[] =>
      RELATIONS.filter(([s, t, type]) =>
        input.view === 'impact'
          ? t === from && type !== 'contains'
          : input.view === 'composition'
            ? s === from && (type === 'contains' || type === 'runs_on')
            : s === from && (type === 'depends_on' || type === 'runs_on'),
      ).map(([s, t]) => (input.view === 'impact' ? s : t));
    const seen = new Map<string, number>([[root.ci_id, 0]]);
    let frontier = [root.ci_id];
    for (let d = 1; d <= (input.depth ?? 2); d += 1) {
      frontier = frontier.flatMap(follow).filter((id) => !seen.has(id));
      for (const id of frontier) seen.set(id, d);
    }
    const nodes = [...seen]
      .filter(([, d]) => d > 0)
      .map(([id, distance]) => ({ ci_id: id, ci_name: data.resolve(id)!.ci_name, distance }));
    return { data: { root: root.ci_id, view: input.view, nodes, edges: [] } };
  },
  document_search: (input, data) => {
    const words: string[] = String(input.query)
      .toLowerCase()
      .split(/[^\p{L}\p{N}_-]+/u)
      .filter((w) => w.length >= 2);
    const results = data.documents
      .map((doc) => ({
        title: doc.title,
        snippet: doc.text.slice(0, 80),
        score: words.filter((w) => `${doc.title} ${doc.text}`.toLowerCase().includes(w)).length,
      }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, input.top_k ?? 5);
    return { data: { results } };
  },
};

/** A stand-in for a built-in OPS tool: same definition, answers from the data set. */
export class FakeOpsTool implements Tool {
  /** Inputs this tool was called with, for assertions. */
  readonly calls: Array<Record<string, unknown>> = [];
  delayMs = 0;

  constructor(
    readonly definition: ToolDefinition,
    private readonly data: OpsDataset,
  ) {}

  async execute(context: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    this.calls.push(input);
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (context.signal.aborted) throw new ToolError('CANCELLED', 'cancelled');
    return RUNNERS[this.definition.name](input, this.data);
  }
}

export function createFakeOpsTools(now: Date): FakeOpsTool[] {
  const data = new OpsDataset(now);
  return OPS_TOOL_DEFINITIONS.map((definition) => new FakeOpsTool(structuredClone(definition), data));
}
