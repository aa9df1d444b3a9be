import type { ToolDefinition } from '@app/tools';
import { isItemLookup } from '../knowledge/item-vocabulary';
import type { Plan, PlanExecutionResult, StepExecution } from '../plan/plan.types';
import { findProperty } from '../plan/schema-introspection.util';

type Lang = 'ko' | 'en';
type Row = Record<string, unknown>;

const TEXT = {
  ko: {
    noTool: (tools: string) =>
      `이 질문은 도구로 조회할 내용이 없습니다. 사용할 수 있는 도구에 맞는 질문을 해 주세요. 사용 가능한 도구: ${tools}.`,
    failed: (tool: string, error: string) => `${tool} 실행 실패: ${error}`,
    skipped: (tool: string) => `${tool}: 선행 단계가 실패하여 실행하지 않았습니다.`,
    rows: (tool: string, n: number, total: unknown, about: string) =>
      `${tool}${about}: ${n}건${typeof total === 'number' && total > n ? ` (전체 ${total}건 중)` : ''}`,
    documents: (n: number) => `관련 문서 ${n}건:`,
    scoped: (tool: string, n: number) => `${tool}: 대상 ${n}건을 기준으로 조회했습니다.`,
    empty: '결과가 없습니다.',
    more: (n: number) => `... 외 ${n}건`,
  },
  en: {
    noTool: (tools: string) =>
      `This question needs no tool: ask about what the available tools look up. Available tools: ${tools}.`,
    failed: (tool: string, error: string) => `${tool} failed: ${error}`,
    skipped: (tool: string) => `${tool}: not run because a step it depends on failed.`,
    rows: (tool: string, n: number, total: unknown, about: string) =>
      `${tool}${about}: ${n} result(s)${typeof total === 'number' && total > n ? ` (of ${total})` : ''}`,
    documents: (n: number) => `${n} related document(s):`,
    scoped: (tool: string, n: number) => `${tool}: scoped to ${n} matching item(s).`,
    empty: 'No results.',
    more: (n: number) => `... and ${n} more`,
  },
};

const MAX_ROWS = 10;
const PASSAGE_CHARS = 240;
const str = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
/** A number for reading: at most two decimals (the structured result keeps the raw value). */
export function readableNumber(value: unknown): string {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
  if (!Number.isFinite(n)) return str(value);
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const day = (iso: unknown) => (typeof iso === 'string' ? iso.slice(0, 16).replace('T', ' ') : '');
/** Long free-text fields: a passage to quote, not a column to list. */
const TEXT_KEYS = ['snippet', 'chunk_text', 'content', 'text', 'preview', 'passage', 'body'];

/** What a row is called: its name (`name`, `<x>_name`), title, symbol or file, else its id. */
function label(row: Row): string {
  const keys = Object.keys(row);
  const named = keys.find((k) => /(?:^|_)name$/.test(k) && str(row[k]));
  for (const key of [named, 'title', 'symbol', 'file', 'label', 'summary'])
    if (key && str(row[key])) return str(row[key]);
  const id = keys.find((k) => /(?:^|_)id$/.test(k) && str(row[k]));
  return id ? str(row[id]) : '?';
}

/** A few short facts of a row beside its label (types, states, times), not ids or long text. */
function details(row: Row, shown: string): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(row)) {
    if (out.length >= 3) break;
    if (/(?:^|_)(?:id|ids)$/.test(key) || TEXT_KEYS.includes(key) || key === 'rank') continue;
    const text = str(value);
    if (!text || text === shown || UUID.test(text) || text.length > 32) continue;
    out.push(ISO_TIME.test(text) ? day(text) : typeof value === 'number' ? readableNumber(value) : text);
  }
  return out;
}

/** The list a tool result is about: its largest array of records. */
function mainRows(data: Row): Row[] | null {
  let best: Row[] | null = null;
  for (const value of Object.values(data))
    if (Array.isArray(value) && value.every((v) => v && typeof v === 'object' && !Array.isArray(v)))
      if (!best || value.length > best.length) best = value as Row[];
  return best;
}

/** Short scalar fields of the result itself ("metric=x, agg=avg"): what the rows are about. */
function about(data: Row): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (parts.length >= 3 || ['total', 'count', 'truncated'].includes(key)) continue;
    const text = str(value);
    if (text && text.length <= 40 && typeof value === 'string') parts.push(text);
  }
  const range = data.time_range as { start?: string; end?: string } | undefined;
  if (range?.start) parts.push(`${day(range.start)} ~ ${day(range.end)}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

function passage(row: Row): string {
  const text = TEXT_KEYS.map((key) => str(row[key])).find(Boolean) ?? '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > PASSAGE_CHARS ? `${flat.slice(0, PASSAGE_CHARS)}...` : flat;
}

function renderStep(step: StepExecution, lang: Lang): string {
  const t = TEXT[lang];
  if (step.status === 'skipped') return t.skipped(step.tool_type);
  if (!step.result.success) return t.failed(step.tool_type, step.result.error ?? 'unknown error');
  const data = (step.result.data ?? {}) as Row;
  const rows = mainRows(data);
  if (!rows) {
    const lines = Object.entries(data)
      .filter(([, value]) => str(value))
      .map(([key, value]) => `- ${key}: ${typeof value === 'number' ? readableNumber(value) : str(value)}`);
    return `${step.tool_type}:\n${lines.length ? lines.join('\n') : t.empty}`;
  }
  if (!rows.length) return `${t.rows(step.tool_type, 0, data.total, about(data))}\n${t.empty}`;
  // Passages (a document search): the best passage of each document, by document name.
  if (rows.some((row) => passage(row))) {
    const byName = new Map<string, string>();
    for (const row of rows) if (!byName.has(label(row))) byName.set(label(row), passage(row));
    const lines = [...byName].slice(0, MAX_ROWS).map(([name, text]) => `- ${name}${text ? `: ${text}` : ''}`);
    return `${t.documents(byName.size)}\n${lines.join('\n')}`;
  }
  const ranked = rows.every((row) => typeof row.value === 'number' || typeof row.value === 'string');
  const lines = rows.slice(0, MAX_ROWS).map((row, i) => {
    const name = label(row);
    if (ranked) return `${i + 1}. ${name}: ${readableNumber(row.value)}`;
    const facts = details(row, name);
    return `- ${name}${facts.length ? ` [${facts.join(', ')}]` : ''}`;
  });
  if (rows.length > MAX_ROWS) lines.push(t.more(rows.length - MAX_ROWS));
  return `${t.rows(step.tool_type, rows.length, data.total, about(data))}\n${lines.join('\n')}`;
}

/**
 * Steps that scope another step rather than answer the question: those a later step depends on, and an item
 * lookup beside a step over a time window (ranking looked-up items by a measure). Their lists would read as
 * an unrelated answer; they get one line.
 */
function contextSteps(plan: Plan, tools: ToolDefinition[]): Set<string> {
  const context = new Set(plan.steps.flatMap((step) => step.depends_on ?? []));
  const definition = (name: string) => tools.find((t) => t.name === name);
  const windowed = plan.steps.some((step) =>
    Boolean(findProperty(definition(step.tool_type)?.input_schema, ['time_range'])),
  );
  if (windowed)
    for (const step of plan.steps) {
      const tool = definition(step.tool_type);
      if (tool && isItemLookup(tool)) context.add(step.id);
    }
  return context;
}

function summarizeStep(step: StepExecution, lang: Lang): string {
  const data = (step.result.data ?? {}) as Row;
  const count = mainRows(data)?.length ?? 0;
  return TEXT[lang].scoped(step.tool_type, typeof data.total === 'number' ? data.total : count);
}

/** A readable answer without a language model: each step's results, in the question's language. */
export function templateAnswer(
  plan: Plan,
  execution: PlanExecutionResult | null,
  tools: ToolDefinition[],
): string {
  const lang: Lang = plan.language ?? 'en';
  if (!plan.steps.length || !execution) return TEXT[lang].noTool(tools.map((t) => t.name).join(', '));
  const context = contextSteps(plan, tools);
  return execution.steps
    .map((step) =>
      context.has(step.step_id) && step.status === 'succeeded' && step.result.success
        ? summarizeStep(step, lang)
        : renderStep(step, lang),
    )
    .join('\n\n');
}
