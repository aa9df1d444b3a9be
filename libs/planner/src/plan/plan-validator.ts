import type { ToolDefinition } from '@app/tools';
import { referencedStep, SchemaValidator } from '@app/tools';
import type { CompiledSchema } from '@app/tools';
import { CatalogIndex } from '../knowledge/catalog-index';
import { Plan, PlanIssue, PlanIssueCode, PlanStep, PlanValidation } from './plan.types';
import { toStageReferences } from './plan-references';
import { CATALOG_COLUMN_KEY, schemaProperties } from './schema-introspection.util';

export interface PlanValidationContext {
  /** The tools the tenant can use, with availability. */
  tools: Array<ToolDefinition & { available?: boolean }>;
  catalog: CatalogIndex;
  maxLimit: number;
  maxSteps: number;
}

const LIMIT_NAMES = new Set(['limit', 'top_n', 'top_k', 'size', 'max_results']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isStepReference(value: unknown): value is { $ref: string; path?: string } {
  return isRecord(value) && typeof value.$ref === 'string';
}

/** Every `{ $ref }` inside a value, with its JSON pointer and the step it names (null: not a reference path). */
function references(
  value: unknown,
  pointer = '',
): Array<{ pointer: string; ref: string; step: string | null }> {
  if (isStepReference(value))
    return [{ pointer: pointer || '/', ref: value.$ref, step: referencedStep(value.$ref) }];
  if (Array.isArray(value)) return value.flatMap((item, index) => references(item, `${pointer}/${index}`));
  if (isRecord(value))
    return Object.entries(value).flatMap(([key, item]) => references(item, `${pointer}/${key}`));
  return [];
}

/**
 * Checks a plan before anything runs: known and available tools, parameters valid for each tool's
 * input schema, filter fields and values present in the catalog, references to earlier steps only,
 * no dependency cycles. Limits above the cap are lowered (a warning, not an error).
 */
export class PlanValidator {
  private readonly validator = new SchemaValidator();
  private readonly compiled = new WeakMap<object, CompiledSchema>();

  validate(raw: unknown, context: PlanValidationContext): PlanValidation {
    const errors: PlanIssue[] = [];
    const warnings: string[] = [];
    const issue = (code: PlanIssueCode, stepId: string | null, path: string, message: string) =>
      errors.push({ code, step_id: stepId, path, message });

    if (!isRecord(raw) || !Array.isArray(raw.steps)) {
      issue('MALFORMED_PLAN', null, '/', 'A plan is an object with "intent" (string) and "steps" (array).');
      return { valid: false, errors, warnings, plan: null };
    }
    const intent = typeof raw.intent === 'string' && raw.intent.trim() ? raw.intent.trim() : 'general';
    if (raw.steps.length > context.maxSteps) {
      issue(
        'TOO_MANY_STEPS',
        null,
        '/steps',
        `At most ${context.maxSteps} steps are allowed, got ${raw.steps.length}.`,
      );
    }

    const steps: PlanStep[] = [];
    const positions = new Map<string, number>();
    raw.steps.forEach((candidate: unknown, index: number) => {
      const path = `/steps/${index}`;
      if (!isRecord(candidate) || typeof candidate.tool_type !== 'string') {
        issue(
          'MALFORMED_PLAN',
          null,
          path,
          'Each step needs "tool_type" (string) and "parameters" (object).',
        );
        return;
      }
      const id =
        typeof candidate.id === 'string' && candidate.id.trim() ? candidate.id.trim() : `s${index + 1}`;
      if (positions.has(id)) issue('DUPLICATE_STEP_ID', id, `${path}/id`, `Step id "${id}" is used twice.`);
      positions.set(id, index);
      const parameters = candidate.parameters ?? {};
      if (!isRecord(parameters)) {
        issue('MALFORMED_PLAN', id, `${path}/parameters`, '"parameters" must be an object.');
        return;
      }
      const dependsOn = candidate.depends_on ?? [];
      if (!Array.isArray(dependsOn) || dependsOn.some((d) => typeof d !== 'string')) {
        issue('MALFORMED_PLAN', id, `${path}/depends_on`, '"depends_on" must be an array of step ids.');
        return;
      }
      if (
        candidate.source !== undefined &&
        candidate.source !== null &&
        typeof candidate.source !== 'string'
      ) {
        issue('MALFORMED_PLAN', id, `${path}/source`, '"source" must be the name of a data source (string).');
        return;
      }
      steps.push({
        id,
        tool_type: candidate.tool_type,
        ...(typeof candidate.source === 'string' && candidate.source.trim()
          ? { source: candidate.source.trim() }
          : {}),
        // One reference syntax: the earlier `{ $ref, path }` form is rewritten to the stage syntax.
        parameters: toStageReferences(structuredClone(parameters)) as Record<string, unknown>,
        depends_on: [...new Set(dependsOn as string[])],
        ...(typeof candidate.purpose === 'string' ? { purpose: candidate.purpose } : {}),
        ...(Array.isArray(candidate.needs_input) && candidate.needs_input.every((n) => typeof n === 'string')
          ? { needs_input: [...new Set(candidate.needs_input)] }
          : {}),
      });
    });

    for (const step of steps) this.checkStep(step, positions, context, issue, warnings);
    this.checkCycles(steps, issue);

    const valid = errors.length === 0;
    const language = raw.language === 'ko' || raw.language === 'en' ? raw.language : undefined;
    const plan: Plan = { intent, steps, ...(language ? { language } : {}) };
    return { valid, errors, warnings, plan: valid ? plan : null };
  }

  private checkStep(
    step: PlanStep,
    positions: Map<string, number>,
    context: PlanValidationContext,
    issue: (code: PlanIssueCode, stepId: string | null, path: string, message: string) => void,
    warnings: string[],
  ): void {
    const tool = context.tools.find((t) => t.name === step.tool_type);
    const known = context.tools.map((t) => t.name).join(', ');
    if (!tool) {
      issue('UNKNOWN_TOOL', step.id, '/tool_type', `Unknown tool "${step.tool_type}". Use one of: ${known}.`);
      return;
    }
    if (tool.available === false) {
      issue('TOOL_UNAVAILABLE', step.id, '/tool_type', `Tool "${step.tool_type}" is currently unavailable.`);
      return;
    }
    // The step runs against the source its tool reads: filled in when left out, refused when another.
    const reads = tool.source_ref ?? null;
    if (step.source !== undefined && step.source !== reads) {
      issue(
        'SOURCE_MISMATCH',
        step.id,
        '/source',
        reads
          ? `Tool "${tool.name}" reads source "${reads}", not "${step.source}".`
          : `Tool "${tool.name}" reads no declared data source; leave "source" out (got "${step.source}").`,
      );
      return;
    }
    if (reads) step.source = reads;

    const position = positions.get(step.id) ?? 0;
    for (const dependency of step.depends_on ?? []) {
      if (!positions.has(dependency)) {
        issue(
          'UNKNOWN_DEPENDENCY',
          step.id,
          '/depends_on',
          `Step "${step.id}" depends on unknown step "${dependency}".`,
        );
      }
    }
    const refs = references(step.parameters);
    for (const { pointer, ref, step: target } of refs) {
      const at = target === null ? undefined : positions.get(target);
      if (target === null) {
        issue(
          'INVALID_REFERENCE',
          step.id,
          `/parameters${pointer}`,
          `"${ref}" is not a reference: use "<step id>.data.<path>", e.g. "s1.data.items[*].id".`,
        );
      } else if (at === undefined) {
        issue(
          'INVALID_REFERENCE',
          step.id,
          `/parameters${pointer}`,
          `Reference to unknown step "${target}".`,
        );
      } else if (at >= position) {
        issue(
          'INVALID_REFERENCE',
          step.id,
          `/parameters${pointer}`,
          `"${step.id}" may only use outputs of earlier steps, not "${target}".`,
        );
      } else if (!step.depends_on?.includes(target)) {
        step.depends_on = [...(step.depends_on ?? []), target];
      }
    }

    for (const property of schemaProperties(tool.input_schema)) {
      const value = step.parameters[property.name];
      if (!LIMIT_NAMES.has(property.name) || typeof value !== 'number') continue;
      const cap = Math.min(property.maximum ?? context.maxLimit, context.maxLimit);
      if (value > cap) {
        step.parameters[property.name] = cap;
        warnings.push(`${step.id}: ${property.name} ${value} capped to ${cap}.`);
      }
    }

    let schema = this.compiled.get(tool.input_schema);
    if (!schema) {
      schema = this.validator.compile(tool.input_schema);
      this.compiled.set(tool.input_schema, schema);
    }
    const refPointers = refs.map((r) => r.pointer);
    // An input the step asks the caller for is missing on purpose (see PlanStep.needs_input).
    const asked = (i: { path: string; message: string }) =>
      i.message.includes('required property') &&
      (step.needs_input ?? []).some((name) => i.message.includes(`'${name}'`));
    const schemaIssues = schema
      .check(step.parameters)
      .filter((i) => !refPointers.some((p) => i.path === p || i.path.startsWith(`${p}/`)) && !asked(i));
    for (const schemaIssue of schemaIssues) {
      issue(
        'INVALID_PARAMETERS',
        step.id,
        `/parameters${schemaIssue.path === '/' ? '' : schemaIssue.path}`,
        `${step.tool_type}: ${schemaIssue.path} ${schemaIssue.message}`,
      );
    }
    this.checkCatalog(step, tool, context.catalog.forTool(tool.name), issue, warnings);
  }

  private checkCatalog(
    step: PlanStep,
    tool: ToolDefinition,
    catalog: CatalogIndex,
    issue: (code: PlanIssueCode, stepId: string | null, path: string, message: string) => void,
    warnings: string[],
  ): void {
    for (const property of schemaProperties(tool.input_schema)) {
      const value = step.parameters[property.name];
      if (value === undefined || isStepReference(value)) continue;
      if (property.catalogTable && isRecord(value)) {
        const table = catalog.table(property.catalogTable);
        if (!table) {
          if (Object.keys(value).length)
            warnings.push(
              `${step.id}: no catalog table "${property.catalogTable}" published; filters not checked.`,
            );
          continue;
        }
        const declared = (property.schema.properties ?? {}) as Record<string, Record<string, unknown>>;
        for (const [field, filterValue] of Object.entries(value)) {
          const ref = declared[field]?.[CATALOG_COLUMN_KEY];
          const column = typeof ref === 'string' ? catalog.columnRef(ref) : catalog.column(table.name, field);
          // A key the tool's own filter schema declares (names, tags) is checked by that schema.
          if (!column && field in declared) continue;
          if (!column) {
            issue(
              'UNKNOWN_FILTER_FIELD',
              step.id,
              `/parameters/${property.name}/${field}`,
              `"${field}" is not a column of ${table.name} (columns: ${table.columns.map((c) => c.name).join(', ')}).`,
            );
            continue;
          }
          const allowed = column.enum_values;
          const values = Array.isArray(filterValue) ? filterValue : [filterValue];
          const bad = allowed?.length ? values.filter((v) => !allowed.includes(String(v))) : [];
          if (bad.length) {
            issue(
              'INVALID_FILTER_VALUE',
              step.id,
              `/parameters/${property.name}/${field}`,
              `${table.name}.${field} has no value ${bad.map((b) => JSON.stringify(b)).join(', ')} (allowed: ${allowed!.join(', ')}).`,
            );
          }
        }
      }
      if (property.catalogColumn) {
        const column = catalog.columnRef(property.catalogColumn);
        if (!column) continue;
        const values = Array.isArray(value) ? value : [value];
        const allowed = column.enum_values;
        const bad = allowed?.length ? values.filter((v) => !allowed.includes(String(v))) : [];
        if (bad.length) {
          issue(
            'UNKNOWN_CATALOG_VALUE',
            step.id,
            `/parameters/${property.name}`,
            `${property.catalogColumn} has no value ${bad.map((b) => JSON.stringify(b)).join(', ')} (allowed: ${allowed!.join(', ')}).`,
          );
        }
      }
    }
  }

  private checkCycles(
    steps: PlanStep[],
    issue: (code: PlanIssueCode, stepId: string | null, path: string, message: string) => void,
  ): void {
    const byId = new Map(steps.map((s) => [s.id, s]));
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (id: string, trail: string[]): void => {
      if (state.get(id) === 'done') return;
      if (state.get(id) === 'visiting') {
        const cycle = [...trail.slice(trail.indexOf(id)), id];
        issue(
          'DEPENDENCY_CYCLE',
          id,
          '/depends_on',
          `Steps depend on each other in a cycle: ${cycle.join(' -> ')}.`,
        );
        return;
      }
      state.set(id, 'visiting');
      for (const dependency of byId.get(id)?.depends_on ?? [])
        if (byId.has(dependency)) visit(dependency, [...trail, id]);
      state.set(id, 'done');
    };
    for (const step of steps) visit(step.id, []);
  }
}
