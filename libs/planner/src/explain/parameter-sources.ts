import type { FallbackTrace } from '../fallback/fallback-planner';
import type { ParameterExplanation, ParameterSource, Plan, PlannerSource } from '../plan/plan.types';

export interface ParameterSourcesInput {
  /** The plan as it runs (validated: defaults filled, limits capped). */
  plan: Plan | null;
  /** The plan as the planner made it, before validation (a parameter only here was filled by the validator). */
  raw: Plan | null;
  planner: PlannerSource;
  /** What the deterministic planner read the question as (for its own plans). */
  trace: FallbackTrace | null;
}

const isReference = (value: unknown): value is { $ref: string } =>
  typeof value === 'object' && value !== null && typeof (value as { $ref?: unknown }).$ref === 'string';

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Where a value the deterministic planner put in a parameter came from, read from what it computed. */
function fallbackSource(
  name: string,
  value: unknown,
  tool: string,
  trace: FallbackTrace,
  query: string,
): { source: ParameterSource; detail: string } {
  const { analysis } = trace;
  const { signals } = analysis;
  const values = Array.isArray(value) ? value.map(String) : [String(value)];
  const key = name.includes('.') ? name.slice(name.indexOf('.') + 1) : name;
  const fact = analysis.facts.find((f) => values.includes(f.value) && (f.field === key || f.field === name));
  if (fact) {
    const keyword = analysis.matchedMappings.find((m) => m.kind !== 'tool' && String(m.value) === fact.value);
    return keyword
      ? {
          source: 'mapping_keyword',
          detail: `the keyword "${keyword.keyword}" of the tenant's mappings means ${fact.field} = ${fact.value}`,
        }
      : {
          source: 'catalog_value',
          detail: `${fact.value} is a value of ${fact.table ? `${fact.table}.` : ''}${fact.field} in the catalog, named in the question`,
        };
  }
  const slot = (trace.slots[tool] ?? []).find((s) => s.property === name && values.includes(s.value));
  if (slot)
    return slot.kind === 'enum'
      ? {
          source: 'schema_enum',
          detail: `the question names ${slot.value}, a value of the input schema's enum`,
        }
      : {
          source: 'schema_pattern',
          detail: `${slot.value} in the question has the shape the input schema gives`,
        };
  if (values.every((v) => analysis.identifiers.includes(v) || analysis.tags.includes(v)))
    return { source: 'item_name', detail: 'an item name the question mentions' };
  if (values.every((v) => analysis.itemTopics.includes(v) || analysis.textTopics.includes(v)))
    return { source: 'question', detail: 'words of the question to look items up by' };
  if (typeof value === 'object' && value !== null && 'start' in value && 'end' in value)
    return signals.timeRange
      ? { source: 'time_expression', detail: 'the time the question gives, as of the reference time' }
      : { source: 'assumed', detail: 'the question gives no time: the last 24 hours' };
  if (typeof value === 'string' && value === query.trim())
    return { source: 'question', detail: "the question's own text" };
  if (typeof value === 'number')
    // A ranking's size without a number is assumed; any other number is one the question gives with its unit.
    return signals.limit !== value && /^(?:limit|top_n|top_k|size)$/.test(key)
      ? { source: 'assumed', detail: 'a ranking without a number: the usual size' }
      : { source: 'number', detail: 'the number the question gives' };
  if (value === signals.order || value === signals.bucket || value === signals.aggregation)
    return { source: 'question', detail: "the question's wording (ranking, aggregate or interval)" };
  return { source: 'question', detail: 'read from the question' };
}

/** Every parameter of every step of the plan, with where its value came from. */
export function explainParameters(input: ParameterSourcesInput, query: string): ParameterExplanation[] {
  const explained: ParameterExplanation[] = [];
  for (const step of input.plan?.steps ?? []) {
    const raw = input.raw?.steps.find((s) => s.id === step.id)?.parameters ?? {};
    const add = (name: string, value: unknown, planned: unknown, present: boolean) => {
      let found: { source: ParameterSource; detail: string };
      if (!present)
        found = { source: 'default', detail: "the input schema's default (filled by validation)" };
      else if (isReference(value))
        found = { source: 'step_reference', detail: `the result of ${value.$ref.split('.')[0]}` };
      else if (!sameValue(value, planned))
        found = {
          source: 'default',
          detail: `capped or normalised by validation (planned ${JSON.stringify(planned)})`,
        };
      else if (input.planner !== 'fallback' || !input.trace)
        found = { source: 'llm', detail: 'chosen by the model' };
      else found = fallbackSource(name, value, step.tool_type, input.trace, query);
      explained.push({ step_id: step.id, tool: step.tool_type, name, value, ...found });
    };
    for (const [name, value] of Object.entries(step.parameters)) {
      const planned = raw[name];
      const present = name in raw;
      if (
        present &&
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        !isReference(value) &&
        !('start' in value && 'end' in value)
      )
        for (const [key, inner] of Object.entries(value))
          add(
            `${name}.${key}`,
            inner,
            (planned as Record<string, unknown> | undefined)?.[key],
            typeof planned === 'object' && planned !== null && key in planned,
          );
      else add(name, value, planned, present);
    }
    for (const name of step.needs_input ?? [])
      explained.push({
        step_id: step.id,
        tool: step.tool_type,
        name,
        value: null,
        source: 'needs_input',
        detail: 'required, and the question does not give it: asked for before the step runs',
      });
  }
  return explained;
}
