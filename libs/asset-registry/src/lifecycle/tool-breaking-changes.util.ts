import type { BreakingChange } from '../asset.types';

type Schema = Record<string, unknown>;

const asSchema = (value: unknown): Schema | null =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Schema) : null;

/** The types a schema admits; `integer` is a `number`, so an integer -> number change widens. */
function typesOf(schema: Schema): Set<string> | null {
  const type = schema.type;
  if (type === undefined) return null;
  const list = (Array.isArray(type) ? type : [type]).map(String);
  return new Set(list);
}

function admits(types: Set<string>, type: string): boolean {
  return types.has(type) || (type === 'integer' && types.has('number'));
}

const properties = (schema: Schema): Record<string, Schema> =>
  (asSchema(schema.properties) as Record<string, Schema> | null) ?? {};

const requiredOf = (schema: Schema): Set<string> =>
  new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * What a new input schema breaks for callers of the old one: a field they send is gone, a field they
 * may omit is now required, a type they send is no longer accepted, or an enum value was dropped.
 */
function compareInput(before: Schema, after: Schema, path: string, out: BreakingChange[]): void {
  const oldTypes = typesOf(before);
  const newTypes = typesOf(after);
  if (oldTypes && newTypes) {
    const lost = [...oldTypes].filter((t) => !admits(newTypes, t));
    if (lost.length > 0) {
      out.push({
        kind: 'input_type_changed',
        path: path || '(input)',
        message: `type ${[...oldTypes].join('|')} -> ${[...newTypes].join('|')}`,
      });
      return;
    }
  }
  if (Array.isArray(before.enum) && Array.isArray(after.enum)) {
    const kept = new Set(after.enum.map((v) => JSON.stringify(v)));
    const dropped = before.enum.filter((v) => !kept.has(JSON.stringify(v)));
    if (dropped.length > 0) {
      out.push({
        kind: 'input_enum_narrowed',
        path: path || '(input)',
        message: `no longer accepts ${dropped.map((v) => JSON.stringify(v)).join(', ')}`,
      });
    }
  }
  const oldProps = properties(before);
  const newProps = properties(after);
  const oldRequired = requiredOf(before);
  for (const [key, oldProp] of Object.entries(oldProps)) {
    const newProp = newProps[key];
    if (!newProp) {
      out.push({ kind: 'input_field_removed', path: join(path, key), message: 'input field removed' });
      continue;
    }
    compareInput(oldProp, newProp, join(path, key), out);
  }
  for (const key of requiredOf(after)) {
    if (!oldRequired.has(key)) {
      out.push({
        kind: 'input_field_newly_required',
        path: join(path, key),
        message: oldProps[key] ? 'optional input field is now required' : 'new required input field',
      });
    }
  }
  const oldItems = asSchema(before.items);
  const newItems = asSchema(after.items);
  if (oldItems && newItems) compareInput(oldItems, newItems, `${path}[]`, out);
}

/** What a new output schema breaks for readers of the old one: a field is gone or has another type. */
function compareOutput(before: Schema, after: Schema, path: string, out: BreakingChange[]): void {
  const oldTypes = typesOf(before);
  const newTypes = typesOf(after);
  if (oldTypes && newTypes) {
    const added = [...newTypes].filter((t) => !admits(oldTypes, t));
    if (added.length > 0) {
      out.push({
        kind: 'output_type_changed',
        path: path || '(output)',
        message: `type ${[...oldTypes].join('|')} -> ${[...newTypes].join('|')}`,
      });
      return;
    }
  }
  const newProps = properties(after);
  for (const [key, oldProp] of Object.entries(properties(before))) {
    const newProp = newProps[key];
    if (!newProp) {
      out.push({ kind: 'output_field_removed', path: join(path, key), message: 'output field removed' });
      continue;
    }
    compareOutput(oldProp, newProp, join(path, key), out);
  }
  const oldItems = asSchema(before.items);
  const newItems = asSchema(after.items);
  if (oldItems && newItems) compareOutput(oldItems, newItems, `${path}[]`, out);
}

/** Breaking changes of a tool's contract between the published version and the candidate. */
export function toolBreakingChanges(
  previous: { input: unknown; output: unknown },
  next: { input: unknown; output: unknown },
): BreakingChange[] {
  const changes: BreakingChange[] = [];
  const oldInput = asSchema(previous.input);
  const newInput = asSchema(next.input);
  if (oldInput && newInput) compareInput(oldInput, newInput, '', changes);
  const oldOutput = asSchema(previous.output);
  const newOutput = asSchema(next.output);
  if (oldOutput && newOutput) compareOutput(oldOutput, newOutput, '', changes);
  if (oldOutput && !newOutput) {
    changes.push({ kind: 'output_field_removed', path: '(output)', message: 'output schema removed' });
  }
  return changes;
}
