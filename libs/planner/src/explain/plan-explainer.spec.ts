import type { ToolDefinition } from '@app/tools';
import { FallbackPlanner, type FallbackPlannerInput } from '../fallback/fallback-planner';
import { CatalogIndex } from '../knowledge/catalog-index';
import { contentKnowledgeVersion } from '../knowledge/knowledge-version';
import type { PlanExplanation } from '../plan/plan.types';
import { explainPlan } from './plan-explainer';

/** A tenant's own tools (an HR team's), published with hints: what the explanation names is that data. */
const tool = (
  definition: Partial<ToolDefinition> & Pick<ToolDefinition, 'name' | 'description'>,
): ToolDefinition => ({
  kind: 'http',
  input_schema: { type: 'object', properties: {} },
  output_schema: null,
  has_side_effects: false,
  timeout_ms: 10_000,
  source: 'dynamic',
  version: 1,
  ...definition,
});

const LEAVE_BALANCE = tool({
  name: 'leave_balance',
  description: '직원 휴가 잔여일수 조회 / remaining leave days of an employee',
  input_schema: {
    type: 'object',
    properties: { employee: { type: 'string', description: 'Employee name or id' } },
    required: ['employee'],
  },
  planning_hints: {
    examples: { ko: ['연차 며칠 남았어?', '휴가 잔여일 알려줘'], en: ['how many leave days do I have left'] },
    keywords: { ko: ['연차', '잔여일'], en: ['leave days', 'PTO'] },
    not_for: { en: ['apply for leave next friday'] },
  },
});
const LEAVE_REQUEST = tool({
  name: 'leave_request',
  description: 'Submit a leave request for an employee',
  input_schema: {
    type: 'object',
    properties: {
      leave_type: { type: 'string', enum: ['annual', 'sick', 'parental'] },
      start_date: {
        type: 'string',
        pattern: '^\\d{4}-\\d{2}-\\d{2}$',
        description: 'First day, e.g. 2026-12-01',
      },
      days: { type: 'integer', minimum: 1, maximum: 30, description: 'number of days' },
    },
    required: ['leave_type', 'start_date'],
  },
  planning_hints: {
    examples: { en: ['apply for leave next friday', 'request two days off'], ko: ['휴가 신청해줘'] },
    keywords: { en: ['apply for leave', 'request leave'], ko: ['휴가 신청'] },
  },
});
const ROOM_BOOKING = tool({
  name: 'room_booking',
  description: 'Book a meeting room for a time slot',
  planning_hints: { examples: ['book the big meeting room at 3pm'], keywords: ['meeting room'] },
});
const TOOLS = [LEAVE_BALANCE, LEAVE_REQUEST, ROOM_BOOKING];
const NOW = new Date('2026-11-22T09:00:00Z');

function explained(query: string, planner = new FallbackPlanner(null, { trainSynchronously: true })) {
  const input: FallbackPlannerInput = {
    query,
    tools: TOOLS,
    catalog: new CatalogIndex(null),
    mappings: null,
    now: NOW,
    maxLimit: 100,
    explain: true,
  };
  const result = planner.plan(input);
  const explain = explainPlan({
    query,
    tools: TOOLS,
    trace: result.trace!,
    mappings: null,
    knowledge: {
      version: contentKnowledgeVersion(TOOLS, null, null),
      mappings: null,
      catalogs: [],
      resolvers: [],
    },
    planner: { source: 'fallback', reason: 'llm_not_configured', message: 'no LLM' },
    plan: result.plan,
    rawPlan: result.plan,
    llm: null,
  });
  return { result, explain };
}

const toolOf = (explain: PlanExplanation, name: string) => explain.tools.find((t) => t.tool === name);

describe('explainPlan (why a plan was chosen)', () => {
  it('names the hint that matched, the threshold and the decision for the chosen tool', () => {
    const { result, explain } = explained('김민수 연차 며칠 남았어?');
    expect(result.plan.steps.map((s) => s.tool_type)).toEqual(['leave_balance']);
    const chosen = toolOf(explain, 'leave_balance')!;
    expect(chosen.chosen).toBe(true);
    expect(chosen.decision).toMatch(/^chosen/);
    expect(chosen.score).toBeGreaterThanOrEqual(chosen.bar);
    // The hint keyword "연차" the admin published is what pointed at it.
    expect(chosen.evidence).toEqual(
      expect.arrayContaining([expect.objectContaining({ source: 'hint_keyword', text: '연차' })]),
    );
    expect(chosen.evidence).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'hint_example', text: '연차 며칠 남았어?' }),
      ]),
    );
    expect(explain.knowledge.touched.keywords).toEqual(
      expect.arrayContaining([{ keyword: '연차', value: 'leave_balance', kind: 'tool', hint: true }]),
    );
    expect(explain.knowledge.tools.find((t) => t.name === 'leave_balance')?.hints).toEqual({
      examples: 3,
      keywords: 4,
      not_for: 1,
    });
    expect(explain.fallback_choice).toEqual(['leave_balance']);
    expect(explain.thresholds).toMatchObject({ tool: 0.5, evidence: 0.3 });
    // A tool nothing points at is left out, below its bar.
    const other = toolOf(explain, 'room_booking');
    if (other) expect(other.decision).toMatch(/^left out/);
  });

  it('says where each parameter came from: an enum value, a pattern-shaped value, an input asked for', () => {
    const { result, explain } = explained('apply for sick leave starting 2026-12-01');
    expect(result.plan.steps.map((s) => s.tool_type)).toEqual(['leave_request']);
    const request = toolOf(explain, 'leave_request')!;
    expect(request.evidence).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'schema_enum', text: 'leave_type = sick' }),
        expect.objectContaining({ source: 'hint_keyword', text: 'apply for leave' }),
      ]),
    );
    expect(explain.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ step_id: 's1', name: 'leave_type', value: 'sick', source: 'schema_enum' }),
        expect.objectContaining({
          step_id: 's1',
          name: 'start_date',
          value: '2026-12-01',
          source: 'schema_pattern',
        }),
      ]),
    );
    // leave_balance's owner said it is not for applying for leave: shown as evidence against it.
    const balance = toolOf(explain, 'leave_balance');
    expect(balance?.chosen).toBe(false);
    expect(balance?.evidence).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'not_for', text: 'apply for leave next friday', against: true }),
      ]),
    );

    // A number read with its unit is the question's, not assumed.
    expect(explained('apply for sick leave starting 2026-12-01 for 3 days').explain.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'days', value: 3, source: 'number' })]),
    );

    const asked = explained('연차 며칠 남았어?').explain;
    expect(asked.parameters).toEqual([
      expect.objectContaining({ step_id: 's1', name: 'employee', source: 'needs_input', value: null }),
    ]);
  });

  it('costs nothing when not asked: the planner returns no trace', () => {
    const plain = new FallbackPlanner(null, { trainSynchronously: true }).plan({
      query: '김민수 연차 며칠 남았어?',
      tools: TOOLS,
      catalog: new CatalogIndex(null),
      mappings: null,
      now: NOW,
      maxLimit: 100,
    });
    expect(plain.trace).toBeUndefined();
    expect(plain.plan.steps.map((s) => s.tool_type)).toEqual(['leave_balance']);
  });
});
