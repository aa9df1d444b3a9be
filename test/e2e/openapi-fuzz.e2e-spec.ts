import fc from 'fast-check';
import { startTestApp, TestApp, testBackend } from '@test/support';

/**
 * Issue 13, "Proof": every operation of the OpenAPI document, called by every role with hostile
 * input (malformed JSON, wrong types, huge and deeply nested values, NUL, lone surrogates,
 * `__proto__`, boundary numbers, random path parameters), never answers 5xx.
 * FUZZ_RUNS (default 300) requests in all; FUZZ_SEED replays a run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const CONCURRENCY = 8;

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodySchema?: Schema;
}

interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
}

interface FuzzRequest {
  op: Operation;
  role: string;
  path: Record<string, string>;
  query: Array<[string, string]>;
  body: { kind: 'json'; value: unknown } | { kind: 'raw'; text: string; type: string } | { kind: 'none' };
}

// Long-running background work that the fuzz test does not need to start again and again.
const SKIPPED = new Set(['POST /ops/demo/load']);

const HOSTILE_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'lone \ud800',
  '\udc00 low',
  '%_\\',
  '%00',
  '..',
  '../../etc/passwd',
  "'; DROP TABLE documents; --",
  '__proto__',
  'constructor',
  '😀'.repeat(50),
  'x'.repeat(70_000),
  '{{input.p}}',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '2147483648',
  '9007199254740993',
  '99999999999999999999',
  '1e308',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
];

const BOUNDARY_NUMBERS = [0, -1, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, -1e308, 0.5, 5e-324];

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ maxLength: 40, unit: 'binary' }),
);
const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(...BOUNDARY_NUMBERS),
  fc.boolean(),
  fc.constant(null),
  fc.integer(),
  fc.double(),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileScalar },
  { weight: 1, arbitrary: fc.array(hostileScalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileScalar, { maxKeys: 4 }) },
  {
    weight: 1,
    arbitrary: fc.constant(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{}}}')),
  },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 200 }).map((depth) => nest(depth)) },
);

function nest(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

function resolve(schema: Schema | undefined, components: Record<string, Schema>): Schema | undefined {
  if (!schema?.$ref) return schema;
  return components[schema.$ref.split('/').pop()!];
}

/** An object shaped like the schema (its property names), with hostile or plausible values. */
function bodyFor(schema: Schema | undefined, components: Record<string, Schema>): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, components);
  const names = Object.keys(resolved?.properties ?? {});
  if (names.length === 0) return fc.dictionary(hostileString, hostileValue, { maxKeys: 3 });
  const plausible = (name: string): fc.Arbitrary<unknown> => {
    const property = resolve(resolved!.properties![name], components);
    if (property?.enum?.length) return fc.oneof(fc.constantFrom(...property.enum), hostileValue);
    return hostileValue;
  };
  return fc.record(Object.fromEntries(names.map((name) => [name, plausible(name)])), { requiredKeys: [] });
}

function operationsOf(doc: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const params: Array<{ in: string; name: string }> = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      const operation: Operation = {
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodySchema: (content['application/json'] ?? Object.values(content)[0])?.schema,
      };
      if (!SKIPPED.has(`${operation.method} ${operation.path}`)) operations.push(operation);
    }
  }
  return operations;
}

/** Path segments are sent percent-encoded; a lone surrogate becomes invalid UTF-8 bytes instead. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

function encodeQuery(pairs: Array<[string, string]>): string {
  if (pairs.length === 0) return '';
  return `?${pairs.map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).join('&')}`;
}

describe(`OpenAPI fuzz (${testBackend()})`, () => {
  let t: TestApp;
  const keys: Record<string, string> = {};
  const realIds: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    keys.admin = t.adminKey;
    for (const role of ['operator', 'reader', 'service']) {
      const created = await t.request('POST', '/api/keys', { body: { name: `fuzz-${role}`, role } });
      expect(created.status).toBe(201);
      keys[role] = created.body.secret;
    }
    // A key the fuzzer may revoke by id (revoking the callers' own keys would turn the rest into 401s).
    const spare = await t.request('POST', '/api/keys', { body: { name: 'fuzz-spare', role: 'reader' } });
    realIds.push(spare.body.key.id);
    const asset = await t.request('POST', '/api/assets', {
      body: { asset_type: 'prompt', name: 'fuzz', scope: 's', engine: 'e', template: 't' },
    });
    realIds.push(asset.body.id);
    await t.request('POST', `/api/assets/${asset.body.id}/publish`);
    const doc = await t.request('POST', '/api/documents', {
      body: { filename: 'fuzz.md', content: '# fuzz' },
    });
    realIds.push(doc.body.id);
  });
  afterAll(() => t.close());

  it(`answers ${RUNS} hostile requests over every operation and role without a 5xx (seed ${SEED})`, async () => {
    const docs = await t.request('GET', '/docs-json', { key: null });
    const components: Record<string, Schema> = docs.body.components?.schemas ?? {};
    const operations = operationsOf(docs.body);
    expect(operations.length).toBeGreaterThan(30);

    const pathValue = fc.oneof(
      fc.constantFrom(...realIds, 'default', 'tool', 'prompt', 'fuzz', '1', 'published', 'draft'),
      hostileString.filter((s) => s.length > 0 && s.length < 2000),
    );
    const queryPair = (op: Operation) =>
      fc.tuple(
        fc.constantFrom(
          ...op.queryParams,
          'limit',
          'offset',
          'search',
          'status',
          'metadata',
          'include_deleted',
        ),
        hostileString.filter((s) => s.length < 5000),
      );
    const body = (op: Operation): FuzzRequest['body'] extends infer B ? fc.Arbitrary<B> : never =>
      fc.oneof(
        {
          weight: 5,
          arbitrary: bodyFor(op.bodySchema, components).map((value) => ({ kind: 'json' as const, value })),
        },
        { weight: 1, arbitrary: hostileValue.map((value) => ({ kind: 'json' as const, value })) },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom(
              '{"a":',
              '{"a":1,}',
              "{'a':1}",
              '\u0000',
              '['.repeat(5000),
              `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
              '{"name":"\\ud800"}',
              '{"name":"a\\u0000b"}',
              '{"__proto__":{"isAdmin":true}}',
              '1e999999',
              '"just a string"',
            )
            .map((text) => ({ kind: 'raw' as const, text, type: 'application/json' })),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom('a=%00&b[c][d][e][f][g][h]=1', 'name=%ED%A0%80', 'x'.repeat(1000))
            .map((text) => ({ kind: 'raw' as const, text, type: 'application/x-www-form-urlencoded' })),
        },
        { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
      );
    const request: fc.Arbitrary<FuzzRequest> = fc.constantFrom(...operations).chain((op) =>
      fc.record({
        op: fc.constant(op),
        role: fc.constantFrom(...Object.keys(keys)),
        path: fc.record(Object.fromEntries(op.pathParams.map((name) => [name, pathValue]))),
        query: fc.array(queryPair(op), { maxLength: 3 }),
        body: body(op),
      }),
    );

    const samples = fc.sample(request, { numRuns: RUNS, seed: SEED });
    const statuses = new Map<number, number>();
    const failures: Array<{ method: string; url: string; role: string; status: number; body: string }> = [];
    const send = async (sample: FuzzRequest): Promise<void> => {
      const route = sample.op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        encodeSegment(sample.path[name]),
      );
      const url = `${t.url}${route}${encodeQuery(sample.query)}`;
      const headers: Record<string, string> = { authorization: `Bearer ${keys[sample.role]}` };
      let payload: string | undefined;
      if (sample.body.kind === 'json') {
        payload = JSON.stringify(sample.body.value) ?? 'null';
        headers['content-type'] = 'application/json';
      } else if (sample.body.kind === 'raw') {
        payload = sample.body.text;
        headers['content-type'] = sample.body.type;
      }
      if (sample.op.path === '/mcp') headers.accept = 'application/json, text/event-stream';
      const method = sample.op.method;
      const response = await fetch(url, {
        method,
        headers,
        body: method === 'GET' || method === 'HEAD' ? undefined : payload,
        signal: AbortSignal.timeout(60_000),
      });
      const text = await response.text();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status >= 500) {
        failures.push({
          method,
          url: url.slice(t.url.length, 300),
          role: sample.role,
          status: response.status,
          body: text.slice(0, 300),
        });
      }
    };
    const queue = [...samples];
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await send(next);
      }),
    );
    const summary = {
      backend: testBackend(),
      seed: SEED,
      requests: samples.length,
      operations: operations.length,
      statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
      durationMs: Date.now() - started,
    };
    if (process.env.FUZZ_REPORT === '1') process.stdout.write(`fuzz summary ${JSON.stringify(summary)}\n`);
    expect(failures).toEqual([]);
  });
});
