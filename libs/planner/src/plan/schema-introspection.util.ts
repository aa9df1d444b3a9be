import type { JsonSchema } from '@app/tools';

/** JSON Schema annotations the planner understands on tool input properties. */
export const CATALOG_TABLE_KEY = 'x-catalog-table';
export const CATALOG_COLUMN_KEY = 'x-catalog-column';

export interface PropertyInfo {
  name: string;
  schema: JsonSchema;
  required: boolean;
  type: string | null;
  enumValues: string[] | null;
  hasDefault: boolean;
  maximum: number | null;
  catalogTable: string | null;
  catalogColumn: string | null;
}

function typeOf(schema: JsonSchema): string | null {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') as string | undefined) ?? null;
  // "one value or a list": the planner fills the simplest alternative.
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(alternatives)) {
    for (const alternative of alternatives) {
      const inner = typeOf(alternative);
      if (inner && inner !== 'null') return inner;
    }
  }
  return null;
}

export function schemaProperties(schema: JsonSchema | null | undefined): PropertyInfo[] {
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    schema: property,
    required: required.has(name),
    type: typeOf(property),
    enumValues: Array.isArray(property.enum) ? (property.enum as unknown[]).map(String) : null,
    hasDefault: property.default !== undefined,
    maximum: typeof property.maximum === 'number' ? property.maximum : null,
    catalogTable: typeof property[CATALOG_TABLE_KEY] === 'string' ? property[CATALOG_TABLE_KEY] : null,
    catalogColumn: typeof property[CATALOG_COLUMN_KEY] === 'string' ? property[CATALOG_COLUMN_KEY] : null,
  }));
}

/** The keys an object schema accepts, or null when it accepts any key. */
export function allowedKeys(schema: JsonSchema | null | undefined): Set<string> | null {
  if (!schema || schema.additionalProperties !== false) return null;
  return new Set(Object.keys(schema.properties ?? {}));
}

export function findProperty(
  schema: JsonSchema | null | undefined,
  names: string[],
): PropertyInfo | undefined {
  const properties = schemaProperties(schema);
  for (const name of names) {
    const found = properties.find((p) => p.name === name);
    if (found) return found;
  }
  return undefined;
}

/**
 * The id fields a step's output can feed into other tools: `<x>_id` for every tool input `<x>_ids`, then
 * `id` (a tool taking `item_ids` is fed the `item_id` of another tool's rows, else their `id`).
 */
export function linkableIdFields(tools: ReadonlyArray<{ input_schema: JsonSchema }>): string[] {
  const fields = new Set<string>();
  for (const tool of tools)
    for (const property of schemaProperties(tool.input_schema)) {
      const match = /^([a-z][a-z0-9]*)_ids$/.exec(property.name);
      if (match) fields.add(`${match[1]}_id`);
    }
  return [...fields, 'id'];
}

/**
 * A path through an output schema to the ids of the items it returns (`nodes.<x>_id`), so that a later
 * step can take them as input. Searches arrays of objects for one of the id fields, in their order.
 */
export function findIdPath(
  schema: JsonSchema | null | undefined,
  idFields: string[] = ['id'],
): string | null {
  if (!schema) return null;
  for (const { name, schema: property, type } of schemaProperties(schema)) {
    if (type === 'array') {
      const items = property.items as JsonSchema | undefined;
      const itemProps = schemaProperties(items).map((p) => p.name);
      const field = idFields.find((f) => itemProps.includes(f));
      if (field) return `${name}.${field}`;
    } else if (type === 'object') {
      const inner = findIdPath(property, idFields);
      if (inner) return `${name}.${inner}`;
    }
  }
  return null;
}
