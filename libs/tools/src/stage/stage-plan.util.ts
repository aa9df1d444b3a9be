import { StageException, StageProblem } from './stage.exception';

export interface StageStepRequest {
  id?: string;
  tool_name: string;
  input?: Record<string, unknown>;
  depends_on?: string[];
  timeout_ms?: number;
}

export interface PlannedStep {
  id: string;
  index: number;
  tool_name: string;
  input: Record<string, unknown>;
  /** Explicit depends_on plus every step the input references. */
  depends_on: string[];
  timeout_ms?: number;
}

type PathSegment = { key: string } | { index: number } | { all: true };

/**
 * A reference is an object `{"$ref": "<step id>.<path>"}` anywhere in a step's input; the path walks
 * that step's ToolResult with `.name`, `[n]` and `[*]` (every element), e.g. `step1.data.items[*].id`.
 * A `.name` applied to a list reads that field of every element (`step1.data.items.id`). This is the
 * one reference syntax: stages, plans (the planner's steps run as stage steps) and output mappings.
 */
export const REF_KEY = '$ref';
const REF_PATTERN = /^([A-Za-z_][A-Za-z0-9_-]*)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|\*)\])*)$/;

export function isRef(value: unknown): value is { $ref: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    typeof (value as Record<string, unknown>)[REF_KEY] === 'string'
  );
}

export function parseRef(ref: string): { step: string; path: PathSegment[] } | null {
  const match = REF_PATTERN.exec(ref);
  if (!match) return null;
  const path: PathSegment[] = [];
  for (const part of match[2].match(/\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|\*)\]/g) ?? []) {
    if (part.startsWith('.')) path.push({ key: part.slice(1) });
    else if (part === '[*]') path.push({ all: true });
    else path.push({ index: Number(part.slice(1, -1)) });
  }
  return { step: match[1], path };
}

function collectRefs(value: unknown, found: string[] = []): string[] {
  if (isRef(value)) found.push(value.$ref);
  else if (Array.isArray(value)) value.forEach((v) => collectRefs(v, found));
  else if (typeof value === 'object' && value !== null)
    Object.values(value).forEach((v) => collectRefs(v, found));
  return found;
}

/**
 * Names the steps (`step1`, `step2`, ... when no id is given) and checks the wiring before anything
 * runs (`external`: names that are not steps but may be referenced: earlier stages of a chain, `params`): ids unique, every depends_on and reference names an EARLIER step (the list is the order the
 * planner intends; a later one is a forward reference, the step itself a cycle). Throws 400 with all problems.
 */
export function planStage(
  steps: StageStepRequest[],
  knownTool: (name: string) => boolean,
  external: ReadonlySet<string> = new Set(),
): PlannedStep[] {
  const problems: StageProblem[] = [];
  const ids = steps.map((s, i) => s.id ?? `step${i + 1}`);
  for (const id of ids)
    if (external.has(id))
      problems.push({
        step: id,
        problem: 'duplicate_id',
        message: `step id "${id}" is also the name of an earlier stage or "params"`,
      });
  const position = new Map<string, number>();
  ids.forEach((id, i) => {
    if (position.has(id))
      problems.push({ step: id, problem: 'duplicate_id', message: `step id "${id}" is used twice` });
    else position.set(id, i);
  });
  const planned = steps.map((step, index): PlannedStep => {
    const id = ids[index];
    if (!knownTool(step.tool_name))
      problems.push({
        step: id,
        problem: 'unknown_tool',
        message: `step "${id}": unknown tool "${step.tool_name}"`,
      });
    const referenced: string[] = [];
    for (const ref of collectRefs(step.input ?? {})) {
      const parsed = parseRef(ref);
      if (!parsed)
        problems.push({
          step: id,
          problem: 'bad_reference',
          message: `step "${id}": "${ref}" is not a reference path`,
        });
      else referenced.push(parsed.step);
    }
    // References to earlier stages of a chain (and to `params`) are resolved before the stage starts.
    const dependsOn = [
      ...new Set([...(step.depends_on ?? []), ...referenced.filter((name) => !external.has(name))]),
    ];
    for (const target of dependsOn) {
      const at = position.get(target);
      if (at === undefined)
        problems.push({
          step: id,
          problem: 'unknown_step',
          message: `step "${id}" refers to unknown step "${target}"`,
        });
      else if (at === index)
        problems.push({ step: id, problem: 'cycle', message: `step "${id}" depends on itself` });
      else if (at > index)
        problems.push({
          step: id,
          problem: 'forward_reference',
          message: `step "${id}" refers to "${target}", which comes later`,
        });
    }
    return {
      id,
      index,
      tool_name: step.tool_name,
      input: step.input ?? {},
      depends_on: dependsOn,
      timeout_ms: step.timeout_ms,
    };
  });
  if (problems.length) throw StageException.invalid(problems);
  return planned;
}

export class StepReferenceError extends Error {}

function walk(value: unknown, path: PathSegment[], ref: string): unknown {
  let current: unknown = value;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    if ('all' in segment) {
      if (!Array.isArray(current)) throw new StepReferenceError(`${ref}: [*] applied to a non-list`);
      const rest = path.slice(i + 1);
      return current.map((element) => walk(element, rest, ref));
    }
    if ('index' in segment) {
      if (!Array.isArray(current) || segment.index >= current.length)
        throw new StepReferenceError(`${ref}: no element [${segment.index}]`);
      current = current[segment.index];
    } else if (Array.isArray(current)) {
      // A field of a list is that field of every element (`items.id` reads like `items[*].id`), with
      // lists flattened one level: what a planner means by "the ids of the items".
      const present = current.filter(
        (element) => typeof element === 'object' && element !== null && segment.key in element,
      );
      if (current.length && !present.length)
        throw new StepReferenceError(`${ref}: no element has a field "${segment.key}"`);
      current = present.flatMap((element) => (element as Record<string, unknown>)[segment.key]);
    } else {
      if (typeof current !== 'object' || current === null || !(segment.key in current))
        throw new StepReferenceError(`${ref}: no field "${segment.key}"`);
      current = (current as Record<string, unknown>)[segment.key];
    }
  }
  return current;
}

/** Replaces every reference in `input` with the value it points to in the earlier steps' results. */
export function resolveRefs(input: unknown, results: ReadonlyMap<string, unknown>): unknown {
  if (isRef(input)) {
    const parsed = parseRef(input.$ref)!;
    if (!results.has(parsed.step))
      throw new StepReferenceError(`${input.$ref}: step "${parsed.step}" has no result`);
    return walk(results.get(parsed.step), parsed.path, input.$ref);
  }
  if (Array.isArray(input)) return input.map((v) => resolveRefs(v, results));
  if (typeof input === 'object' && input !== null)
    return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, resolveRefs(v, results)]));
  return input;
}

/** The step a reference names (`servers` in `servers.data.items[*].id`), or null when it is not one. */
export function referencedStep(ref: string): string | null {
  return parseRef(ref)?.step ?? null;
}

/**
 * Checks that every reference in a stage's output mapping names one of its steps or an external name
 * (problems, not an exception, so a caller can collect them with the steps').
 */
export function outputMappingProblems(
  mapping: Record<string, unknown> | undefined,
  names: ReadonlySet<string>,
): StageProblem[] {
  const problems: StageProblem[] = [];
  for (const ref of collectRefs(mapping ?? {})) {
    const parsed = parseRef(ref);
    if (!parsed)
      problems.push({
        step: 'output_mapping',
        problem: 'bad_reference',
        message: `output_mapping: "${ref}" is not a reference path`,
      });
    else if (!names.has(parsed.step))
      problems.push({
        step: 'output_mapping',
        problem: 'unknown_step',
        message: `output_mapping refers to unknown step "${parsed.step}"`,
      });
  }
  return problems;
}
