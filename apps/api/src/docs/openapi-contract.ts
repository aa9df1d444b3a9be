import type {
  OpenAPIObject,
  OperationObject,
  ResponseObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { RESPONSE_SCHEMAS } from './response-schemas';

const ERROR_REF = { $ref: '#/components/schemas/ErrorResponseDto' };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const ERROR_DESCRIPTIONS: Record<number, [string, string]> = {
  400: ['Invalid input (validation, malformed JSON, unknown fields)', 'VALIDATION_FAILED'],
  401: ['Missing, unknown, expired or revoked API key', 'UNAUTHENTICATED'],
  403: ["The key's role does not allow this", 'FORBIDDEN'],
  404: ['Not found in the caller’s tenant', 'NOT_FOUND'],
  409: ['Conflicts with the current state', 'CONFLICT'],
  410: ['Gone for good (an expired confirmation)', 'GONE'],
  413: ['Body or upload over the configured limit', 'PAYLOAD_TOO_LARGE'],
  415: ['Unsupported content type', 'UNSUPPORTED_MEDIA_TYPE'],
  429: ['Rate or concurrency limit reached; retry later', 'RATE_LIMITED'],
  500: ['Unexpected error (logged with the request id)', 'INTERNAL_ERROR'],
  503: ['A dependency (database, cache, model) is unavailable', 'SERVICE_UNAVAILABLE'],
};

/** Operations whose state can conflict (publish a published asset, confirm a decided action, ...). */
const CONFLICTING =
  /^(AssetController_(create|update|publish|rollback|archive|syncCatalog)|PendingActionController_(confirm|reject)|DocumentsController_(restore|update|retry|remove)|DiffsController_apply|SecretsController_put|TenantsController_(create|createKey)|KeysController_create|DemoController_load)$/;
/** Operations on something that can expire (a held action past its time). */
const EXPIRING = /^PendingActionController_(confirm|reject)$/;
/** Not-found answers for ids carried in the body rather than the path. */
const NOT_FOUND_FROM_BODY = /^(ChatController_ask|AssetController_syncCatalog|StageController_execute)$/;
const UPLOADS = /^DocumentsController_(create|update)$/;

function errorResponse(status: number): ResponseObject {
  const [description, error] = ERROR_DESCRIPTIONS[status];
  return {
    description,
    content: {
      'application/json': {
        schema: ERROR_REF,
        example: { error, message: description, requestId: 'b7c4e0a2-3f1d-4c55-9a57-2d8f0f5a8e11' },
      },
    },
  };
}

/** The error statuses an operation can answer, from its shape: inputs, path parameters, security. */
function errorStatuses(id: string, operation: OperationObject): number[] {
  const parameters = (operation.parameters ?? []) as Array<{ in?: string }>;
  const secured = (operation.security ?? []).length > 0;
  const statuses = [500, 503];
  if (operation.requestBody || parameters.length) statuses.push(400);
  if (secured) statuses.push(401, 403, 429);
  if (parameters.some((p) => p.in === 'path') || NOT_FOUND_FROM_BODY.test(id)) statuses.push(404);
  if (CONFLICTING.test(id)) statuses.push(409);
  if (EXPIRING.test(id)) statuses.push(410);
  if (operation.requestBody) statuses.push(413);
  if (UPLOADS.test(id)) statuses.push(415);
  return statuses.sort((a, b) => a - b);
}

/** True when a decorator gave the success response a real schema (not the plugin's bare `object`). */
function documentsItsOwnSchema(response: ResponseObject | undefined): boolean {
  const schema = response?.content?.['application/json']?.schema as Record<string, unknown> | undefined;
  return Boolean(
    schema && (schema.$ref || schema.properties || schema.items || schema.oneOf || schema.anyOf),
  );
}

/**
 * Completes what the decorators and the plugin leave out: each operation's success schema (read from the
 * controller's return type, see scripts/openapi-responses.cjs) and its error responses (ErrorResponseDto).
 */
export function completeContract(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components ??= {}).schemas ?? {};
  for (const [name, schema] of Object.entries(RESPONSE_SCHEMAS.schemas)) schemas[name] ??= schema;
  document.components.schemas = schemas;
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation?.operationId) continue;
      const id = operation.operationId;
      const responses = operation.responses;
      const success = Object.keys(responses).find((status) => status.startsWith('2')) ?? '200';
      const schema = RESPONSE_SCHEMAS.operations[id];
      const existing = responses[success] as ResponseObject | undefined;
      if (schema && !documentsItsOwnSchema(existing)) {
        responses[success] = {
          description: existing?.description || 'Success',
          content: { 'application/json': { schema } },
        };
      } else if (existing && !existing.description) {
        existing.description = 'Success';
      }
      for (const status of errorStatuses(id, operation)) responses[String(status)] ??= errorResponse(status);
    }
  }
  return document;
}
