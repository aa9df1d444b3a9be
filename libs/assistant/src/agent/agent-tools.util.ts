import type { JsonSchema, ToolDefinition } from '@app/tools';
import type { LlmToolSpec } from '@app/planner';

/** The input property through which a tool learns whose data it works on. */
export const USER_ID_PROPERTY = 'user_id';

function properties(schema: JsonSchema): Record<string, JsonSchema> {
  const value = schema.properties;
  return typeof value === 'object' && value !== null ? (value as Record<string, JsonSchema>) : {};
}

export function declaresUserId(schema: JsonSchema): boolean {
  return USER_ID_PROPERTY in properties(schema);
}

/** The schema the model sees: without `user_id`, which the agent fills in itself. */
export function withoutUserId(schema: JsonSchema): JsonSchema {
  if (!declaresUserId(schema)) return schema;
  const { [USER_ID_PROPERTY]: _omitted, ...rest } = properties(schema);
  const required = Array.isArray(schema.required)
    ? (schema.required as string[]).filter((name) => name !== USER_ID_PROPERTY)
    : undefined;
  return { ...schema, properties: rest, ...(required ? { required } : {}) };
}

export function toLlmToolSpec(tool: ToolDefinition): LlmToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: { type: 'object', ...withoutUserId(tool.input_schema) },
  };
}

function typedUserId(schema: JsonSchema, userId: string): unknown {
  const declared = properties(schema)[USER_ID_PROPERTY]?.type;
  const types = Array.isArray(declared) ? declared : [declared];
  const numeric = /^-?\d+$/.test(userId) ? Number(userId) : null;
  if (
    numeric !== null &&
    (types.includes('integer') || types.includes('number')) &&
    !types.includes('string')
  )
    return numeric;
  return userId;
}

/**
 * The input a tool runs with: the model's arguments minus any `user_id` it wrote, plus the
 * request's user id when the tool declares the property (typed as the schema says).
 */
export function bindUserId(
  schema: JsonSchema,
  args: Record<string, unknown>,
  userId: string,
): { input: Record<string, unknown>; overridden: boolean } {
  const { [USER_ID_PROPERTY]: supplied, ...input } = args;
  if (declaresUserId(schema)) input[USER_ID_PROPERTY] = typedUserId(schema, userId);
  return { input, overridden: supplied !== undefined && supplied !== input[USER_ID_PROPERTY] };
}

/** Parses the model's JSON arguments; an object is required. */
export function parseArguments(raw: string): { args: Record<string, unknown> } | { error: string } {
  if (!raw.trim()) return { args: {} };
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return { error: 'the arguments must be a JSON object' };
    return { args: parsed as Record<string, unknown> };
  } catch (error) {
    return { error: `the arguments are not valid JSON: ${(error as Error).message}` };
  }
}

/** Tool output as fed back to the model, cut to a size its context can take. */
export function toolMessageContent(payload: unknown, maxChars: number): string {
  const text = JSON.stringify(payload) ?? 'null';
  return text.length > maxChars
    ? `${text.slice(0, maxChars)}...(truncated ${text.length - maxChars} chars)`
    : text;
}
