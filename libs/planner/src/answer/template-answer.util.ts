import type { Plan, PlanExecutionResult, StepExecution } from '../plan/plan.types';

type Lang = 'ko' | 'en';
type Row = Record<string, unknown>;

const TEXT = {
  ko: {
    noTool: (tools: string) =>
      `이 질문은 데이터 조회가 필요하지 않습니다. 인프라 자산, 메트릭, 이력, 관계, 운영 문서에 대해 물어보세요. 사용 가능한 도구: ${tools}.`,
    failed: (tool: string, error: string) => `${tool} 실행 실패: ${error}`,
    skipped: (tool: string) => `${tool}: 선행 단계가 실패하여 실행하지 않았습니다.`,
    items: (n: number, total: unknown) =>
      `구성 항목 ${n}건${typeof total === 'number' && total > n ? ` (전체 ${total}건 중)` : ''}:`,
    groups: (metric: unknown, agg: unknown, range: string) => `${String(metric)} ${String(agg)}${range}:`,
    events: (n: number, total: unknown) =>
      `이벤트 ${n}건${typeof total === 'number' && total > n ? ` (전체 ${total}건 중)` : ''}:`,
    nodes: (view: unknown, n: number) => `${String(view)} 분석 결과 ${n}개 항목:`,
    docs: (n: number) => `관련 문서 ${n}건:`,
    empty: '결과가 없습니다.',
  },
  en: {
    noTool: (tools: string) =>
      `This question needs no data lookup. Ask about infrastructure items, metrics, event history, relationships or operational documents. Available tools: ${tools}.`,
    failed: (tool: string, error: string) => `${tool} failed: ${error}`,
    skipped: (tool: string) => `${tool}: not run because a step it depends on failed.`,
    items: (n: number, total: unknown) =>
      `${n} configuration item(s)${typeof total === 'number' && total > n ? ` (of ${total})` : ''}:`,
    groups: (metric: unknown, agg: unknown, range: string) => `${String(metric)} ${String(agg)}${range}:`,
    events: (n: number, total: unknown) =>
      `${n} event(s)${typeof total === 'number' && total > n ? ` (of ${total})` : ''}:`,
    nodes: (view: unknown, n: number) => `${String(view)} analysis: ${n} item(s):`,
    docs: (n: number) => `${n} related document(s):`,
    empty: 'No results.',
  },
};

const MAX_ROWS = 10;
const str = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
/** A number for reading: at most two decimals (the structured result keeps the raw value). */
export function readableNumber(value: unknown): string {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
  if (!Number.isFinite(n)) return str(value);
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}
const name = (row: Row) =>
  str(row.ci_name) || str(row.name) || str(row.title) || str(row.ci_id) || str(row.id) || '?';
const day = (iso: unknown) => (typeof iso === 'string' ? iso.slice(0, 16).replace('T', ' ') : '');

function renderStep(step: StepExecution, lang: Lang): string {
  const t = TEXT[lang];
  if (step.status === 'skipped') return t.skipped(step.tool_type);
  if (!step.result.success) return t.failed(step.tool_type, step.result.error ?? 'unknown error');
  const data = (step.result.data ?? {}) as Row;
  const rows = (key: string) => (Array.isArray(data[key]) ? (data[key] as Row[]) : null);
  const list = (lines: string[]) => (lines.length ? lines.join('\n') : t.empty);
  const groups = rows('groups');
  if (groups) {
    const range = data.time_range as { start?: string; end?: string } | undefined;
    const span = range?.start ? ` (${day(range.start)} ~ ${day(range.end)})` : '';
    return `${t.groups(data.metric ?? data.metric_name, data.aggregation ?? data.agg, span)}\n${list(groups.slice(0, MAX_ROWS).map((g, i) => `${i + 1}. ${name(g)}${str(g.ci_id) && g.ci_id !== '*' ? ` (${str(g.ci_id)})` : ''}: ${readableNumber(g.value)}`))}`;
  }
  const items = rows('items');
  if (items) {
    return `${t.items(items.length, data.total)}\n${list(items.slice(0, MAX_ROWS).map((c) => `- ${name(c)} [${[c.ci_type, c.environment, c.status].filter(Boolean).join(', ')}]`))}`;
  }
  const events = rows('events');
  if (events) {
    return `${t.events(events.length, data.total)}\n${list(events.slice(0, MAX_ROWS).map((e) => `- ${day(e.occurred_at)} ${str(e.kind)} ${str(e.summary) || str(e.ci_id)}`.trim()))}`;
  }
  const nodes = rows('nodes');
  if (nodes) {
    return `${t.nodes(data.view ?? step.tool_type, nodes.length)}\n${list(nodes.slice(0, MAX_ROWS).map((n) => `- ${name(n)}${(n.distance ?? n.depth) !== undefined ? ` (${readableNumber(n.distance ?? n.depth)})` : ''}`))}`;
  }
  const results = rows('results');
  if (results)
    return `${t.docs(results.length)}\n${list(results.slice(0, MAX_ROWS).map((r) => `- ${name(r)}`))}`;
  const json = JSON.stringify(step.result.data);
  return `${step.tool_type}: ${json.length > 400 ? `${json.slice(0, 400)}...` : json}`;
}

/**
 * Steps that scope another step rather than answer the question: those a later step depends on, and an item
 * lookup beside a metric or history step (the seed's "top 5 prod servers by CPU" looks the servers up and
 * ranks them by the metric). Their lists would read as an unrelated answer; they get one line.
 */
function contextSteps(plan: Plan): Set<string> {
  const context = new Set(plan.steps.flatMap((step) => step.depends_on ?? []));
  const ranks = plan.steps.some(
    (step) => step.tool_type === 'metric_query' || step.tool_type === 'history_query',
  );
  if (ranks) for (const step of plan.steps) if (step.tool_type === 'ci_lookup') context.add(step.id);
  return context;
}

function summarizeStep(step: StepExecution, lang: Lang): string {
  const data = (step.result.data ?? {}) as Row;
  const count = Object.values(data).find((value): value is unknown[] => Array.isArray(value))?.length ?? 0;
  const total = typeof data.total === 'number' ? data.total : count;
  return lang === 'ko'
    ? `${step.tool_type}: 대상 ${total}건을 기준으로 조회했습니다.`
    : `${step.tool_type}: scoped to ${total} matching item(s).`;
}

/** A readable answer without a language model: each step's results, in the question's language. */
export function templateAnswer(
  plan: Plan,
  execution: PlanExecutionResult | null,
  toolNames: string[],
): string {
  const lang: Lang = plan.language ?? 'en';
  if (!plan.steps.length || !execution) return TEXT[lang].noTool(toolNames.join(', '));
  const context = contextSteps(plan);
  return execution.steps
    .map((step) =>
      context.has(step.step_id) && step.status === 'succeeded' && step.result.success
        ? summarizeStep(step, lang)
        : renderStep(step, lang),
    )
    .join('\n\n');
}
