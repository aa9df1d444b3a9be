import { Injectable } from '@nestjs/common';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { AssetSpec, ContractIssue } from '../asset.types';
import { ASSET_NAME_PATTERN, AssetTypeRegistry, type AssetType } from '../types/asset-type.registry';

/** Fields holding JSON Schemas written by admins: they must be valid JSON Schema themselves. */
const SCHEMA_FIELDS = ['tool_input_schema', 'tool_output_schema', 'input_schema', 'output_contract'];

/** `/content/tables/0/name` -> `content.tables[0].name` */
export function toFieldPath(pointer: string, prefix = ''): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = prefix;
  for (const part of parts) {
    path = /^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part;
  }
  return path;
}

function toIssues(errors: ErrorObject[] | null | undefined, prefix = ''): ContractIssue[] {
  const issues: ContractIssue[] = [];
  for (const e of errors ?? []) {
    // `if` only reports that a `then` branch failed; the branch's own errors name the field.
    if (e.keyword === 'if') continue;
    let pointer = e.instancePath;
    if (e.keyword === 'required') pointer += `/${(e.params as { missingProperty: string }).missingProperty}`;
    if (e.keyword === 'additionalProperties') {
      pointer += `/${(e.params as { additionalProperty: string }).additionalProperty}`;
    }
    const message =
      e.keyword === 'additionalProperties'
        ? 'is not an allowed property'
        : e.keyword === 'enum'
          ? `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
          : (e.message ?? e.keyword);
    issues.push({ field: toFieldPath(pointer, prefix) || prefix || '(root)', message });
  }
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.field}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Checks asset payloads against the JSON Schema their type registered (`AssetTypeRegistry`), and
 * admin-written JSON Schemas for validity.
 */
@Injectable()
export class AssetSpecValidator {
  private readonly ajv: Ajv;
  private readonly userAjv: Ajv;
  private readonly specValidators = new Map<AssetType, { schema: string; validate: ValidateFunction }>();

  constructor(private readonly types: AssetTypeRegistry) {
    // The asset schemas and admin-written schemas may carry annotations Ajv does not know
    // (x-catalog-table, examples): accepted, not fatal.
    const lenient = {
      strictSchema: false,
      strictTypes: false,
      strictTuples: false,
      strictRequired: false,
    } as const;
    this.ajv = new Ajv({ allErrors: true, ...lenient });
    addFormats(this.ajv);
    this.userAjv = new Ajv({ allErrors: true, ...lenient, useDefaults: false });
    addFormats(this.userAjv);
  }

  /**
   * The compiled schema of a type's fields, compiled on first use: compiling all of them took a few
   * hundred milliseconds of every start on a busy machine, before the first request could be served.
   */
  private specValidator(assetType: AssetType): ValidateFunction {
    const definition = this.types.definition(assetType)!;
    const cached = this.specValidators.get(assetType);
    // A schema built from other registrations (the tool type's kinds) is compiled again if it changed.
    const schema = this.types.schemaOf(definition);
    const key = typeof definition.schema === 'function' ? JSON.stringify(schema) : '';
    if (cached && cached.schema === key) return cached.validate;
    const validate = this.ajv.compile(schema);
    this.specValidators.set(assetType, { schema: key, validate });
    return validate;
  }

  /** An asset type nobody registered: the only issue, naming the registered ones. */
  typeIssues(assetType: AssetType): ContractIssue[] {
    return this.types.has(assetType)
      ? []
      : [{ field: 'asset_type', message: `must be one of ${this.types.types().join(', ')}` }];
  }

  nameIssues(assetType: AssetType, name: string): ContractIssue[] {
    const pattern = this.types.definition(assetType)?.namePattern ?? ASSET_NAME_PATTERN;
    return pattern.test(name) ? [] : [{ field: 'name', message: `must match ${pattern.source}` }];
  }

  /** Every problem with the type-specific fields of an asset, each naming its field. */
  specIssues(assetType: AssetType, spec: AssetSpec): ContractIssue[] {
    const unknown = this.typeIssues(assetType);
    if (unknown.length) return unknown;
    const allowed = new Set<string>(this.types.definition(assetType)!.fields);
    const issues: ContractIssue[] = Object.keys(spec)
      .filter((key) => !allowed.has(key) && spec[key as keyof AssetSpec] !== undefined)
      .map((key) => ({ field: key, message: `is not a field of ${assetType} assets` }));
    const present = Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== undefined));
    const validate = this.specValidator(assetType);
    if (!validate(present)) issues.push(...this.collapseAnyOf(toIssues(validate.errors)));
    for (const field of SCHEMA_FIELDS) {
      const value = present[field];
      if (allowed.has(field) && value && typeof value === 'object' && !Array.isArray(value)) {
        issues.push(...this.schemaIssues(value, field));
      }
    }
    return issues;
  }

  /** Problems with a JSON Schema itself (not with data): meta-schema violations or compile errors. */
  schemaIssues(schema: unknown, field: string): ContractIssue[] {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      return [{ field, message: 'must be a JSON Schema object' }];
    }
    if (!this.userAjv.validateSchema(schema)) return toIssues(this.userAjv.errors, field);
    try {
      this.userAjv.compile(schema);
      return [];
    } catch (error) {
      return [{ field, message: `is not a usable JSON Schema: ${(error as Error).message}` }];
    } finally {
      this.userAjv.removeSchema(schema);
    }
  }

  /** Validates data against an admin-written schema (e.g. a tool's sample input against its input schema). */
  dataIssues(schema: Record<string, unknown>, data: unknown, field: string): ContractIssue[] {
    try {
      const validate = this.userAjv.compile(schema);
      return validate(data) ? [] : toIssues(validate.errors, field);
    } catch (error) {
      return [{ field, message: `cannot be checked: ${(error as Error).message}` }];
    } finally {
      this.userAjv.removeSchema(schema);
    }
  }

  /** A failed `anyOf` at the root lists one `required` per branch; say it once, naming them all. */
  private collapseAnyOf(issues: ContractIssue[]): ContractIssue[] {
    const anyOf = issues.find((i) => i.field === '(root)' && i.message.includes('anyOf'));
    if (!anyOf) return issues;
    const missing = issues.filter((i) => i.message.includes('must have required property'));
    const rest = issues.filter((i) => i !== anyOf && !missing.includes(i));
    return [
      ...rest,
      { field: missing.map((i) => i.field).join(' | '), message: 'at least one of these is required' },
    ];
  }
}
