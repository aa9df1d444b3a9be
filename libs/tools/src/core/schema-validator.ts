import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { JsonSchema } from './tool.types';

export interface SchemaIssue {
  path: string;
  message: string;
}

export interface CompiledSchema {
  /** Validates in place, filling defaults; returns the issues (empty when valid). */
  check(value: unknown): SchemaIssue[];
}

function toIssues(errors: ErrorObject[] | null | undefined): SchemaIssue[] {
  return (errors ?? []).map((e) => {
    const property =
      e.keyword === 'required'
        ? `/${String((e.params as { missingProperty: string }).missingProperty)}`
        : e.keyword === 'additionalProperties'
          ? `/${String((e.params as { additionalProperty: string }).additionalProperty)}`
          : '';
    return { path: `${e.instancePath}${property}` || '/', message: e.message ?? e.keyword };
  });
}

/** JSON Schema validation (draft 2020-12 subset that Ajv's default supports), defaults applied. */
export class SchemaValidator {
  private readonly ajv: Ajv;

  constructor() {
    this.ajv = new Ajv({
      allErrors: true,
      useDefaults: true,
      coerceTypes: false,
      // Tool authors' schemas may carry keywords Ajv does not know (x-*, examples): accepted, not fatal.
      strictSchema: false,
      strictTypes: false,
      strictTuples: false,
      strictRequired: false,
    });
    addFormats(this.ajv);
  }

  /** Throws with a readable message when the schema itself is not valid JSON Schema. */
  compile(schema: JsonSchema): CompiledSchema {
    const validate: ValidateFunction = this.ajv.compile(schema);
    return {
      check: (value) => (validate(value) ? [] : toIssues(validate.errors)),
    };
  }

  /** Issues with the schema itself (for publishing tool assets). */
  schemaIssues(schema: unknown): SchemaIssue[] {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      return [{ path: '/', message: 'schema must be a JSON object' }];
    }
    const metaValid = this.ajv.validateSchema(schema);
    if (!metaValid) return toIssues(this.ajv.errors);
    try {
      this.ajv.compile(schema);
      return [];
    } catch (error) {
      return [{ path: '/', message: (error as Error).message }];
    }
  }
}
