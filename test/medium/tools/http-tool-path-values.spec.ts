import { randomUUID } from 'node:crypto';
import type { ToolAssetSpec } from '@app/asset-registry';
import { HttpToolFactory, ToolRegistry, ToolsModule } from '@app/tools';
import { startTestContext, TestContext, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../../support/http-stand-in';

const TENANT = randomUUID();
const TEMPLATE_PATH = '/api/v1/items/';

/** Dot segments in the spellings a server, proxy or framework on the way might decode or fold. */
const CLIMBING_FORMS = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e.',
  '%252e%252e',
  '%u002e%u002e',
  '\uff0e\uff0e',
  '\uff0e\uff0e\uff0fadmin',
  '..;',
  '..;x=1',
  '..%2f',
  '..%2fadmin',
  '..%5cadmin',
  '..\\admin',
  '../admin',
  'a/../../admin',
  '%c0%ae%c0%ae',
  'a%2fb',
  'a\uff0fb',
];

/** What the most lenient target could make of a request path: every percent layer decoded, NFKC, `;` params dropped. */
function mostDecoded(path: string): string {
  let current = path;
  for (let i = 0; i < 6; i++) {
    const next = current
      .replace(/%u([0-9a-f]{4})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
      .replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
      .normalize('NFKC');
    if (next === current) break;
    current = next;
  }
  return current.replace(/;[^/\\]*/g, '');
}

describe(`http tool path values, as sent (${testBackend()})`, () => {
  let ctx: TestContext;
  let target: StandInServer;
  let registry: ToolRegistry;
  let factory: HttpToolFactory;

  const toolSpec = (): ToolAssetSpec => ({
    name: 'get_item',
    description: 'reads one item (test)',
    kind: 'http',
    tool_config: { method: 'GET', url: `${target.url}${TEMPLATE_PATH}{{input.id}}/detail?v=1` },
    tool_input_schema: {
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    },
    tool_output_schema: null,
  });

  const run = (id: string) =>
    registry.execute(
      {
        tenantId: TENANT,
        userId: 'user-1',
        requestId: randomUUID(),
        traceId: randomUUID(),
        deadline: Date.now() + 10_000,
        signal: new AbortController().signal,
        caller: 'operator',
      },
      'get_item',
      { id },
    );

  beforeAll(async () => {
    target = await startStandIn((req, res) => sendJson(res, 200, { path: req.url }));
    ctx = await startTestContext([ToolsModule], { HTTP_TOOL_ALLOWLIST: `127.0.0.1:${target.port}` });
    registry = ctx.get(ToolRegistry);
    factory = ctx.get(HttpToolFactory);
    registry.setDynamicTool(TENANT, factory.create(toolSpec()));
  });

  afterAll(async () => {
    await ctx?.close();
    await target?.close();
  });

  it.each(CLIMBING_FORMS)('refuses %j as an input error and sends nothing', async (id) => {
    const before = target.requests.length;
    const result = await run(id);
    const sent = target.requests.slice(before).map((r) => r.path);
    // Recorded first, so a failure shows what went out.
    expect({ id, sent }).toEqual({ id, sent: [] });
    expect(result).toMatchObject({ success: false, error_details: { code: 'INVALID_INPUT' } });
  });

  it.each(['abc-1', 'group/project', 'v1.2', '..a', '50%', 'a b', 'café'])(
    'sends %j inside the template path, in no spelling a target could climb from',
    async (id) => {
      const before = target.requests.length;
      const result = await run(id);
      expect(result.success).toBe(true);
      const [sent] = target.requests.slice(before).map((r) => r.path);
      expect(sent.startsWith(TEMPLATE_PATH)).toBe(true);
      expect(sent.endsWith('/detail?v=1')).toBe(true);
      // The value is one segment as sent...
      expect(sent.slice(TEMPLATE_PATH.length).split('/')).toHaveLength(2);
      // ...and no decoding a lenient target might do turns any part of it into a dot segment.
      const decoded = mostDecoded(sent.split('?')[0]).split(/[/\\]/);
      expect(decoded.filter((segment) => /^\.+$/.test(segment.trim()))).toEqual([]);
      expect(new URL(sent, 'http://t').pathname.startsWith(TEMPLATE_PATH)).toBe(true);
    },
  );
});
