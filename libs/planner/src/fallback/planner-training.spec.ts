import { BUILTIN_TOOL_DEFINITIONS, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import type { ToolDefinition } from '@app/tools';
import { CatalogIndex } from '../knowledge/catalog-index';
import { FallbackPlanner, TRAINING_WARNING_PREFIX } from './fallback-planner';
import { ClassifierTrainer } from './planning-classifier';

const NOW = new Date('2026-11-22T09:00:00Z');
const input = (query: string, tools: ToolDefinition[] = [...BUILTIN_TOOL_DEFINITIONS]) => ({
  query,
  tools,
  catalog: new CatalogIndex(OPS_CATALOG),
  mappings: OPS_KEYWORD_MAPPINGS,
  now: NOW,
  maxLimit: 100,
});
const training = (warnings: string[]) => warnings.some((w) => w.startsWith(TRAINING_WARNING_PREFIX));

/** A tenant's own tool, published with hints: what the planner knows about it is that data. */
const LEAVE_TOOL: ToolDefinition = {
  name: 'leave_balance',
  description: '직원 휴가 잔여일수 조회 / remaining leave days of an employee',
  kind: 'http',
  input_schema: { type: 'object', properties: { employee: { type: 'string' } } },
  output_schema: null,
  has_side_effects: false,
  timeout_ms: 10_000,
  source: 'dynamic',
  planning_hints: {
    examples: { ko: ['연차 며칠 남았어?', '휴가 잔여일 알려줘'], en: ['how many leave days do I have left'] },
    keywords: { ko: ['연차', '휴가'], en: ['leave days', 'PTO'] },
  },
};

describe('planner training off the request path', () => {
  it('plans at once while it learns the published knowledge, and says so; then plans from it', async () => {
    const planner = new FallbackPlanner(null, {}, new ClassifierTrainer());
    const question = input('지난 주 prod 서버 CPU top 5');
    const first = planner.plan({ ...question, explain: true });
    // The plan is there without training having run: it was chosen from the rules alone and says so.
    expect(training(first.warnings)).toBe(true);
    expect(first.trace?.classifier).toBe('training');
    expect(planner.ready(question)).toBe(false);
    await planner.prepare(question);
    expect(planner.ready(question)).toBe(true);
    const second = planner.plan({ ...question, explain: true });
    expect(training(second.warnings)).toBe(false);
    expect(second.trace?.classifier).toBe('ready');
    expect(second.plan.steps.map((s) => s.tool_type)).toEqual(['metric_query']);
  }, 60_000);

  it('a publish (a new tool with hints) is new knowledge: trained again, the new tool then chosen on its own evidence', async () => {
    const trainer = new ClassifierTrainer();
    const planner = new FallbackPlanner(null, {}, trainer);
    await planner.prepare(input('x'));
    const withLeave = input('연차 며칠 남았는지 알려줘', [...BUILTIN_TOOL_DEFINITIONS, LEAVE_TOOL]);
    expect(planner.ready(withLeave)).toBe(false);
    expect(training(planner.plan(withLeave).warnings)).toBe(true);
    await planner.prepare(withLeave);
    const planned = planner.plan({ ...withLeave, explain: true });
    expect(planned.plan.steps.map((s) => s.tool_type)).toEqual(['leave_balance']);
    expect(planned.trace?.analysis.features['hinted:leave_balance']).toBe(1);
    // An OPS question is not pulled to the new tool.
    const ops = planner.plan({ ...withLeave, query: '어제 prod-payment-api 장애 이력' });
    expect(ops.plan.steps.map((s) => s.tool_type)).toEqual(['history_query']);
  }, 60_000);

  it('stops a background training when asked (a closing application), and trains again later', async () => {
    const trainer = new ClassifierTrainer();
    const planner = new FallbackPlanner(null, {}, trainer);
    const question = input('지난 주 prod 서버 CPU top 5');
    const pending = planner.prepare(question);
    planner.abortTraining();
    await expect(pending).rejects.toThrow('aborted');
    expect(planner.ready(question)).toBe(false);
    await planner.prepare(question);
    expect(planner.ready(question)).toBe(true);
  }, 60_000);

  it('yields the event loop while training (a timer fires before training ends)', async () => {
    const planner = new FallbackPlanner(null, {}, new ClassifierTrainer());
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await planner.prepare(input('x'));
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  }, 60_000);
});
