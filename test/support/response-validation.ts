import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Checks real responses against the OpenAPI document the app serves: the status must be documented for
 * the operation, and a JSON body must satisfy the documented schema of that status. Every e2e request made
 * through TestApp.request goes through here (issue 17: every e2e response checked, not a sample).
 */
type Json = Record<string, any>;

interface Operation {
  id: string;
  method: string;
  pattern: RegExp;
  responses: Json;
}

/** OpenAPI 3.0 `nullable` as JSON Schema (`type: null` alternatives), recursively. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === 'example' || key === 'examples' || key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) {
      out[key] = `https://contract.test/openapi.json${value}`;
      continue;
    }
    out[key] =
      key === 'properties' || key === 'patternProperties'
        ? Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, toJsonSchema(v)]))
        : toJsonSchema(value);
  }
  if ((node as Json).nullable === true) return { anyOf: [out, { type: 'null' }] };
  return out;
}

export class ResponseValidator {
  private readonly ajv: Ajv;
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(
      { components: toJsonSchema(document.components ?? {}) },
      'https://contract.test/openapi.json',
    );
    for (const [path, item] of Object.entries(document.paths as Json)) {
      const pattern = new RegExp(
        `^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
      );
      for (const [method, operation] of Object.entries(item as Json)) {
        this.operations.push({
          id: operation.operationId,
          method: method.toUpperCase(),
          pattern,
          responses: operation.responses,
        });
      }
    }
    // Literal segments win over parameters (/api/assets/schemas before /api/assets/{id}).
    const parameters = (op: Operation) => op.pattern.source.split('[^/]+').length;
    this.operations.sort((a, b) => parameters(a) - parameters(b));
  }

  /** Problems with one response, or [] when it matches its operation's documented response. */
  check(method: string, route: string, status: number, contentType: string | null, body: unknown): string[] {
    const path = route.split('?')[0];
    const operation = this.operations.find(
      (op) => op.method === method.toUpperCase() && op.pattern.test(path),
    );
    if (!operation) return [];
    const documented = operation.responses[String(status)] ?? operation.responses.default;
    const where = `${method.toUpperCase()} ${path} (${operation.id}) answered ${status}`;
    if (!documented) return [`${where}, which its operation does not document`];
    const schema = documented.content?.['application/json']?.schema;
    if (!schema || !contentType?.includes('json')) return [];
    const key = `${operation.id} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile({ $id: `response:${key}`, allOf: [toJsonSchema(schema)] });
      this.compiled.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${where}: ${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`);
  }
}
