import type { PlanOutcome } from '@app/planner';
import type { JsonSchema, ToolDefinition } from '@app/tools';

export type QuestionKind = 'single' | 'multi' | 'document' | 'none';

export interface LabelledQuestion {
  id: string;
  lang: 'ko' | 'en';
  kind: QuestionKind;
  query: string;
  tools: string[];
  params: Record<string, unknown>;
  split?: 'tune' | 'heldout';
}

export interface QuestionScore {
  id: string;
  lang: 'ko' | 'en';
  kind: QuestionKind;
  planner: string;
  toolsCorrect: boolean;
  paramsCorrect: number;
  paramsTotal: number;
  valid: boolean;
  executed: boolean;
  expected: string[];
  chosen: string[];
  misses: string[];
  /** Per missed parameter: what was expected and what the plan gave (undefined: nothing, or no step of its tool). */
  missDetails: Array<{ label: string; expected: unknown; actual: unknown; toolChosen: boolean }>;
  errors: string[];
  warnings: string[];
}

function valueAt(parameters: unknown, keys: string[]): unknown {
  let current = parameters;
  for (const key of keys) current = (current as Record<string, unknown> | undefined)?.[key];
  return current;
}

/** The default the tool's input schema declares at a parameter path, if any. */
function schemaDefault(schema: JsonSchema | undefined, keys: string[]): unknown {
  let current: JsonSchema | undefined = schema;
  for (const key of keys) current = (current?.properties as Record<string, JsonSchema> | undefined)?.[key];
  return current?.default;
}

const isDate = (value: unknown): value is string =>
  typeof value === 'string' && !Number.isNaN(Date.parse(value));
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * The labelling conventions (bench/planner/README-questions.md): a scalar equals a one-item list, arrays
 * compare as sets, ISO times compare as instants, `{"$nonEmpty": true}` is any non-empty value.
 */
export function matches(actual: unknown, expected: unknown): boolean {
  if (expected && typeof expected === 'object' && '$nonEmpty' in expected) {
    return typeof actual === 'string' ? actual.trim().length > 0 : actual !== undefined && actual !== null;
  }
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (actual === undefined || actual === null) return false;
    const a = asList(actual);
    const e = asList(expected);
    return (
      a.length === new Set(a.map((v) => JSON.stringify(v))).size &&
      a.length === e.length &&
      e.every((value) => a.some((candidate) => matches(candidate, value)))
    );
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null) return false;
    const e = expected as Record<string, unknown>;
    return Object.keys(e).every((key) => matches((actual as Record<string, unknown>)[key], e[key]));
  }
  if (isDate(expected) && isDate(actual) && /\d{4}-\d\d-\d\dT/.test(expected))
    return Date.parse(actual) === Date.parse(expected);
  if (typeof expected === 'string' && typeof actual === 'string')
    return actual.toLowerCase() === expected.toLowerCase();
  return actual === expected;
}

export function gradeQuestion(
  question: LabelledQuestion,
  outcome: PlanOutcome,
  executed: boolean,
  tools: readonly ToolDefinition[],
): QuestionScore {
  const steps = outcome.plan?.steps ?? [];
  const chosen = [...new Set(steps.map((s) => s.tool_type))].sort();
  const expected = [...question.tools].sort();
  const misses: string[] = [];
  const missDetails: QuestionScore['missDetails'] = [];
  let paramsCorrect = 0;
  for (const [label, wanted] of Object.entries(question.params)) {
    const [tool, ...keys] = label.split('.');
    const schema = tools.find((t) => t.name === tool)?.input_schema;
    const ok = steps.some((s) => {
      if (s.tool_type !== tool) return false;
      const actual = valueAt(s.parameters, keys);
      if (actual === undefined) {
        const fallback = schemaDefault(schema, keys);
        return fallback !== undefined && matches(fallback, wanted);
      }
      return matches(actual, wanted);
    });
    if (ok) paramsCorrect += 1;
    else {
      misses.push(label);
      const step = steps.find((s) => s.tool_type === tool);
      missDetails.push({
        label,
        expected: wanted,
        actual: step ? valueAt(step.parameters, keys) : undefined,
        toolChosen: Boolean(step),
      });
    }
  }
  return {
    id: question.id,
    lang: question.lang,
    kind: question.kind,
    planner: outcome.planner,
    toolsCorrect: JSON.stringify(chosen) === JSON.stringify(expected),
    paramsCorrect,
    paramsTotal: Object.keys(question.params).length,
    valid: outcome.valid,
    executed,
    expected,
    chosen,
    misses,
    missDetails,
    errors: outcome.errors.map((e) => `${e.step_id ?? '-'} ${e.code} ${e.path}: ${e.message}`),
    warnings: outcome.warnings,
  };
}
