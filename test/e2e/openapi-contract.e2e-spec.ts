import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, TestApp } from '@test/support';

/**
 * Issue 17, the OpenAPI drift gate: the document the app serves is the committed openapi.json, and the
 * generated inputs it is built from (the swagger plugin's metadata, the response schemas read from the
 * controllers' return types) are what the code gives today. `npm run openapi` regenerates all of them.
 */
const root = path.resolve(__dirname, '../..');
const docsDir = path.join(root, 'apps/api/src/docs');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** Operations that stream or speak another protocol (MCP's JSON-RPC over HTTP), or answer 204. */
const NO_JSON_BODY = new Set([
  'McpHttpController_post',
  'McpHttpController_stream',
  'McpHttpController_close',
  'SecretsController_remove',
  'ChatController_remove',
]);

describe('OpenAPI contract (e2e)', () => {
  let app: TestApp;
  let served: any;

  beforeAll(async () => {
    app = await startTestApp();
    served = (await app.request('GET', '/docs-json', { key: null })).body;
  });
  afterAll(() => app?.close());

  it('serves exactly the committed openapi.json (run `npm run openapi` after changing a controller or DTO)', () => {
    const committed = JSON.parse(readFileSync(path.join(root, 'openapi.json'), 'utf8'));
    expect(served).toEqual(committed);
  });

  it('is built from metadata that matches the code', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
    try {
      execFileSync(process.execPath, [path.join(root, 'scripts/openapi.mjs'), '--metadata-to', dir], {
        cwd: root,
        stdio: 'pipe',
      });
      for (const file of ['plugin-metadata.ts', 'response-schemas.ts']) {
        expect({ file, text: readFileSync(path.join(dir, file), 'utf8') }).toEqual({
          file,
          text: readFileSync(path.join(docsDir, file), 'utf8'),
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  /** An example on the schema or on one of its properties (following $refs a few levels). */
  function hasExample(schema: any, depth = 0): boolean {
    if (!schema || depth > 3) return false;
    if (schema.example !== undefined) return true;
    if (schema.$ref) return hasExample(served.components.schemas[schema.$ref.split('/').pop()], depth + 1);
    return Object.values<any>(schema.properties ?? {}).some((p) => hasExample(p, depth + 1));
  }

  it('documents a success schema, error responses with ErrorResponseDto (with an example) and a request example for every operation', () => {
    const gaps: string[] = [];
    for (const [route, item] of Object.entries<any>(served.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const where = `${method.toUpperCase()} ${route}`;
        const statuses = Object.keys(operation.responses);
        const success = statuses.find((s) => s.startsWith('2'));
        if (!success) gaps.push(`${where}: no success response`);
        else if (!NO_JSON_BODY.has(operation.operationId) && !operation.responses[success].content)
          gaps.push(`${where}: no success schema`);
        const body = operation.requestBody?.content;
        const bodySchema = body?.['application/json']?.schema ?? body?.['multipart/form-data']?.schema;
        if (bodySchema && !hasExample(bodySchema)) gaps.push(`${where}: request body has no example`);
        const errors = statuses.filter((s) => Number(s) >= 400);
        if (!errors.length) gaps.push(`${where}: no error response`);
        for (const status of errors) {
          const content = operation.responses[status].content?.['application/json'];
          if (!content?.schema) gaps.push(`${where}: ${status} has no schema`);
          if (content?.schema?.$ref === '#/components/schemas/ErrorResponseDto' && !content.example)
            gaps.push(`${where}: ${status} has no example`);
        }
      }
    }
    expect(gaps).toEqual([]);
  });

  it('types the search request, the upload and the asset fields as the API accepts them', () => {
    const schemas = served.components.schemas;
    expect(Object.keys(schemas.DocumentSearchRequestDto.properties)).toEqual(
      expect.arrayContaining(['filters', 'candidates', 'weights']),
    );
    expect(schemas.DocumentUploadRequestDto.properties.file).toMatchObject({
      type: 'string',
      format: 'binary',
    });
    for (const field of ['description', 'template', 'query_sql'])
      expect(schemas.CreateAssetRequestDto.properties[field].type).toBe('string');
    expect(schemas.CreateAssetRequestDto.properties.has_side_effects.type).toBe('boolean');
  });
});
