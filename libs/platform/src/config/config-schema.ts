import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, ValidationError } from 'class-validator';

/*
 * What every lib's config class is built with (light: class-transformer and class-validator only, so
 * a server's main() validates the whole environment before it loads the application's modules).
 * A config class is one lib's environment keys: each property a key, its initialiser the default, its
 * class-validator decorators the rules, its @ConfigDoc the meaning shown in docs/configuration.md.
 */

export const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const normalized = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalized)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(normalized)) return false;
  return value;
};

export const toNumber = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() !== '' ? Number(value) : value;

export const emptyToUndefined = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

export const optionalNumber = ({ value }: { value: unknown }): unknown =>
  toNumber({ value: emptyToUndefined({ value }) });

/** `host[:port],*.corp.example,[::1]`: the allowlists of private hosts egress may reach. */
export const HOST_LIST_PATTERN = /^\s*((\*\.)?(\[[0-9a-fA-F:.]+\]|[^\s,:[\]]+)(:\d{1,5})?\s*(,\s*|$))*$/;
export const HOST_LIST_MESSAGE = 'must be a comma-separated list of host[:port]';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ConfigSchema<T extends object = object> = new (...args: any[]) => T;

interface KeyDoc {
  meaning: string;
  /** The default as the docs show it, when the initialiser alone does not say it (`unset (embedded)`). */
  shown?: string;
}

const DOCS = new WeakMap<ConfigSchema, Map<string, KeyDoc>>();

/** The meaning of a config key, as docs/configuration.md shows it (generated: `npm run docs:config`). */
export function ConfigDoc(meaning: string, shown?: string): PropertyDecorator {
  return (target, property) => {
    const schema = target.constructor as ConfigSchema;
    const docs = DOCS.get(schema) ?? new Map<string, KeyDoc>();
    docs.set(String(property), { meaning, shown });
    DOCS.set(schema, docs);
  };
}

/** The keys of a config class: every property with a validation rule, in declaration order. */
export function configKeys(schema: ConfigSchema): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(schema, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))];
}

export interface ConfigKeyDescription {
  key: string;
  /** The default as written in the docs: the initialiser's value in code font, or `unset`. */
  shown: string;
  meaning?: string;
}

export function describeConfig(schema: ConfigSchema): ConfigKeyDescription[] {
  const defaults = new schema() as Record<string, unknown>;
  const docs = DOCS.get(schema);
  return configKeys(schema).map((key) => {
    const doc = docs?.get(key);
    const value = defaults[key];
    const written =
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value);
    const shown = doc?.shown ?? (value === undefined || value === '' ? 'unset' : `\`${written}\``);
    return { key, shown, meaning: doc?.meaning };
  });
}

export class InvalidEnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration, refusing to start:\n${problems.join('\n')}`);
    this.name = 'InvalidEnvironmentError';
  }
}

function problemOf(error: ValidationError, raw: Record<string, unknown>): string {
  const value = raw[error.property];
  const shown = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  const reasons = Object.values(error.constraints ?? {}).join('; ');
  return `- ${error.property}=${shown} (${reasons})`;
}

function parse<T extends object>(schema: ConfigSchema<T>, raw: Record<string, unknown>) {
  // Only the class's own keys: the rest of the environment is another lib's (or no one's).
  const own = Object.fromEntries(configKeys(schema).flatMap((key) => (key in raw ? [[key, raw[key]]] : [])));
  const config = plainToInstance(schema, own, { exposeDefaultValues: true });
  const errors = validateSync(config, { skipMissingProperties: false, forbidUnknownValues: false });
  return { config, problems: errors.map((e) => problemOf(e, raw)) };
}

/**
 * Validates the raw environment against every config class given; throws one error listing every bad
 * key of all of them (`- KEY=value (why)`), so a boot fails once, with the whole list.
 */
export function validateConfigs(
  schemas: readonly ConfigSchema[],
  raw: Record<string, unknown>,
): Map<ConfigSchema, object> {
  const configs = new Map<ConfigSchema, object>();
  const problems: string[] = [];
  for (const schema of schemas) {
    const parsed = parse(schema, raw);
    configs.set(schema, parsed.config);
    problems.push(...parsed.problems);
  }
  if (problems.length > 0) throw new InvalidEnvironmentError(problems);
  return configs;
}

/** One config class read from the raw environment (throws the list of its bad keys). */
export function readConfig<T extends object>(schema: ConfigSchema<T>, raw: Record<string, unknown>): T {
  return validateConfigs([schema], raw).get(schema) as T;
}
