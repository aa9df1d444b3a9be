import type { ChildProcess } from 'node:child_process';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  buildDist,
  createTestDatabase,
  EmbeddingsServer,
  freePort,
  generateTestApiKey,
  runNode,
  RunningProcess,
  sleep,
  startEmbeddingsServer,
  startRedisServer,
  TestDatabase,
  testBackend,
} from '@test/support';

const MAIN = 'dist/apps/api/src/main.js';
const WORKER = 'dist/apps/api/src/worker.js';
/** CHANGE_POLL_SECONDS for these processes. */
const POLL_SECONDS = 2;
/**
 * The stated bound: a change is served by every replica within the bus delivery time, or, when its
 * message was lost, within one poll interval plus one reload. Given slack for a loaded 2-core machine.
 */
const BOUND_MS = POLL_SECONDS * 1000 + 3000;

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

async function call(
  base: string,
  key: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<Reply> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: Record<string, any> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, any>) : {};
  } catch {
    parsed = { text };
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** Polls until `check` passes, failing after `timeoutMs` with the last value seen. */
async function within<T>(
  timeoutMs: number,
  read: () => Promise<T>,
  check: (value: T) => boolean,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await sleep(100);
  }
}

const bigDocument = Array.from(
  { length: 60 },
  (_, i) =>
    `## Step ${i}\n\nCheck replica ${i} lag, then confirm the failover target for shard ${i} is healthy.`,
).join('\n\n');

// Two API processes and a worker share one PostgreSQL and one Redis: the production topology.
// Embedded PGlite is one process by construction (its data directory is locked), so there is no
// second process to test there.
const title =
  testBackend() === 'native'
    ? 'two API replicas and a worker (native)'
    : 'two API replicas and a worker: skipped on embedded, PGlite serves one process (its data directory is locked)';
(testBackend() === 'native' ? describe : describe.skip)(title, () => {
  let database: TestDatabase;
  let embeddings: EmbeddingsServer;
  let redisPort: number;
  let redis: ChildProcess;
  let toolServer: Server;
  let toolBase: string;
  /** While set, the tool server keeps `/hold` requests open until the test answers them. */
  let holding = false;
  const held: Array<() => void> = [];
  let dataDir: string;
  const adminKey = generateTestApiKey();
  const processes: RunningProcess[] = [];
  let a: string;
  let b: string;
  let worker: RunningProcess;

  const env = (): Record<string, string> => ({
    ...database.env,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    REDIS_COMMAND_TIMEOUT_MS: '200',
    ADMIN_API_KEY: adminKey,
    WRITE_ADMIN_KEY_FILE: 'false',
    LOG_LEVEL: 'warn',
    CHANGE_POLL_SECONDS: String(POLL_SECONDS),
    HTTP_TOOL_ALLOWLIST: toolBase.replace('http://', ''),
    EMBEDDINGS_BASE_URL: embeddings.url,
    EMBEDDINGS_MODEL: 'multi-process',
    EMBEDDINGS_DIMENSIONS: '32',
    EMBEDDINGS_BATCH_SIZE: '4',
    DOCUMENTS_CHUNK_TARGET_CHARS: '200',
    DOCUMENTS_JOB_LEASE_SECONDS: '2',
    RATE_LIMIT_PER_KEY: '100000',
    // Per-tenant caps small enough to reach across the two replicas (the caps test uses its own tenants).
    MCP_MAX_SESSIONS_PER_TENANT: '3',
    TOOL_MAX_CONCURRENT_PER_TENANT: '2',
    TOOL_QUEUE_WAIT_MS: '500',
  });

  const start = async (role: 'api' | 'worker'): Promise<{ proc: RunningProcess; base: string }> => {
    const port = await freePort();
    const proc = runNode(role === 'worker' ? WORKER : MAIN, {
      ...env(),
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(dataDir, `${role}-`)),
      ...(role === 'api' ? { APP_ROLE: 'api' } : {}),
    });
    processes.push(proc);
    await proc.waitForOutput(role === 'worker' ? /worker running/ : /listening on/, 90_000);
    return { proc, base: `http://127.0.0.1:${port}` };
  };

  beforeAll(async () => {
    buildDist();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-multi-'));
    database = await createTestDatabase();
    embeddings = await startEmbeddingsServer({ dimensions: 32, delayMs: 100 });
    redisPort = await freePort();
    redis = await startRedisServer(redisPort);
    toolServer = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      const answer = () => res.end(JSON.stringify({ up: true, served: req.url }));
      if (req.url === '/hold' && holding) held.push(answer);
      else answer();
    });
    await new Promise<void>((resolve) => toolServer.listen(0, '127.0.0.1', resolve));
    toolBase = `http://127.0.0.1:${(toolServer.address() as AddressInfo).port}`;
    // One at a time: the first runs the migrations under their lock, the others find them done.
    a = (await start('api')).base;
    b = (await start('api')).base;
    worker = (await start('worker')).proc;
  }, 240_000);

  afterAll(async () => {
    for (const proc of processes) proc.child.kill('SIGKILL');
    await Promise.all(processes.map((proc) => proc.exited));
    redis?.kill('SIGKILL');
    await new Promise((resolve) => toolServer?.close(resolve));
    await embeddings?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const toolAsset = (name: string, path: string) => ({
    asset_type: 'tool',
    name,
    description: `Probe ${name}`,
    tool_type: 'http',
    tool_config: { method: 'GET', url: `${toolBase}/${path}`, timeout_ms: 2000 },
    tool_input_schema: { type: 'object', properties: {} },
    tool_output_schema: { type: 'object', properties: { up: { type: 'boolean' } } },
  });

  /** What a stage execute of `tool` on `base` ran: the tool server path it called, or why not. */
  const execute = async (base: string, tool: string): Promise<string | undefined> => {
    const reply = await call(base, adminKey, 'POST', '/ops/stage/execute', {
      stage_name: 'probe',
      tools: [{ tool_name: tool, input: {} }],
    });
    // A stage naming a tool the replica does not have is refused as a whole (unknown_tool).
    if (reply.body.details?.problems?.some((p: { problem: string }) => p.problem === 'unknown_tool'))
      return 'TOOL_NOT_FOUND';
    if (typeof reply.body.error === 'string') return reply.body.error;
    const result = reply.body.results?.[0]?.result as Record<string, any> | undefined;
    if (result?.success !== true) return result?.error_details?.code ?? JSON.stringify(reply.body);
    return JSON.stringify(result).match(/"served":"\/([^"]+)"/)?.[1] ?? JSON.stringify(result);
  };

  const mcp = async (
    base: string,
    sessionId: string | null,
    message: Record<string, unknown>,
    method = 'POST',
    key = adminKey,
  ) => {
    const response = await fetch(`${base}/mcp`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-03-26',
        ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      },
      body: method === 'POST' ? JSON.stringify(message) : undefined,
    });
    const text = await response.text();
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)) as Record<string, any>);
    return {
      status: response.status,
      sessionId: response.headers.get('mcp-session-id'),
      retryAfter: response.headers.get('retry-after'),
      data,
    };
  };

  it('runs each role as asked: the worker answers health only, the API replicas serve the API', async () => {
    const workerBase = worker.output().match(/http:\/\/localhost:(\d+)/)?.[1];
    expect(workerBase).toBeDefined();
    const w = `http://127.0.0.1:${workerBase}`;
    expect((await call(w, adminKey, 'GET', '/health/ready')).status).toBe(200);
    expect((await call(w, adminKey, 'GET', '/api/keys')).status).toBe(404);
    const ready = await call(a, adminKey, 'GET', '/health/ready');
    expect(ready.body.checks.change_bus).toMatchObject({ status: 'ok', backend: 'redis' });
  });

  it('a tool published, republished, rolled back and archived through A is served the same way by B within the bound', async () => {
    const created = await call(a, adminKey, 'POST', '/api/assets', toolAsset('probe_tool', 'v1'));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(await execute(b, 'probe_tool')).toBe('TOOL_NOT_FOUND');

    expect((await call(a, adminKey, 'POST', `/api/assets/${id}/publish`)).status).toBe(200);
    await within(
      BOUND_MS,
      () => execute(b, 'probe_tool'),
      (r) => r === 'v1',
    );

    const patched = await call(a, adminKey, 'PATCH', `/api/assets/${id}`, {
      tool_config: { method: 'GET', url: `${toolBase}/v2`, timeout_ms: 2000 },
    });
    expect(patched.status).toBe(200);
    expect((await call(a, adminKey, 'POST', `/api/assets/${id}/publish`)).status).toBe(200);
    await within(
      BOUND_MS,
      () => execute(b, 'probe_tool'),
      (r) => r === 'v2',
    );

    expect((await call(a, adminKey, 'POST', `/api/assets/${id}/rollback`, { version: 1 })).status).toBe(200);
    await within(
      BOUND_MS,
      () => execute(b, 'probe_tool'),
      (r) => r === 'v1',
    );

    expect((await call(a, adminKey, 'POST', `/api/assets/${id}/archive`)).status).toBe(200);
    await within(
      BOUND_MS,
      () => execute(b, 'probe_tool'),
      (r) => r === 'TOOL_NOT_FOUND',
    );
  });

  it('a document ingested through A (processed by the worker) is found by a search on B', async () => {
    const search = () =>
      call(b, adminKey, 'POST', '/api/documents/search', { query: 'quarterly kumquat inventory' });
    // Cached on B before the document exists: the change must reach B's cache too.
    expect((await search()).body.results).toEqual([]);
    const created = await call(a, adminKey, 'POST', '/api/documents', {
      filename: 'kumquat.md',
      content: '# Kumquat inventory\n\nThe quarterly kumquat inventory runs on the first Monday.',
    });
    expect(created.status).toBe(202);
    await within(
      60_000,
      () => call(b, adminKey, 'GET', `/api/documents/${created.body.id}`),
      (r) => ['done', 'failed'].includes(r.body.status as string),
    );
    const found = await within(BOUND_MS, search, (r) =>
      (r.body.results as Array<{ document_id: string }>).some((hit) => hit.document_id === created.body.id),
    );
    expect(found.status).toBe(200);
  });

  it('one MCP session serves requests alternating between A and B, and ends everywhere on DELETE', async () => {
    const opened = await mcp(a, null, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
    });
    expect(opened.status).toBe(200);
    const session = opened.sessionId!;
    expect(session).toEqual(expect.any(String));
    expect((await mcp(b, session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);

    let id = 2;
    for (const base of [b, a, b, a]) {
      const listed = await mcp(base, session, { jsonrpc: '2.0', id: id++, method: 'tools/list', params: {} });
      expect(listed.status).toBe(200);
      expect(listed.data[0]?.result?.tools).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'document_search' })]),
      );
    }
    const called = await mcp(b, session, {
      jsonrpc: '2.0',
      id: id++,
      method: 'tools/call',
      params: { name: 'document_search', arguments: { query: 'kumquat' } },
    });
    expect(called.status).toBe(200);
    expect(called.data[0]?.result?.isError ?? false).toBe(false);

    expect((await mcp(b, session, {}, 'DELETE')).status).toBe(200);
    expect(
      (await mcp(a, session, { jsonrpc: '2.0', id: id++, method: 'tools/list', params: {} })).status,
    ).toBe(404);
  });

  describe('per-tenant caps count both replicas', () => {
    let alphaKey: string;
    let alphaOperator: string;
    let betaKey: string;

    beforeAll(async () => {
      const tenant = async (slug: string) => {
        const created = await call(a, adminKey, 'POST', '/api/tenants', { slug });
        expect(created.status).toBe(201);
        return created.body.secret as string;
      };
      alphaKey = await tenant('caps-alpha');
      betaKey = await tenant('caps-beta');
      const operator = await call(a, alphaKey, 'POST', '/api/keys', { name: 'op', role: 'operator' });
      expect(operator.status).toBe(201);
      alphaOperator = operator.body.secret as string;
    });

    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'caps', version: '1' } },
    };

    it('MCP sessions: a tenant with its 3 sessions spread over A and B gets 429 on either; another tenant opens one', async () => {
      const opened = [
        await mcp(a, null, initialize, 'POST', alphaKey),
        await mcp(a, null, initialize, 'POST', alphaKey),
        await mcp(b, null, initialize, 'POST', alphaKey),
      ];
      expect(opened.map((o) => o.status)).toEqual([200, 200, 200]);

      for (const base of [b, a]) {
        const over = await mcp(base, null, initialize, 'POST', alphaKey);
        expect(over.status).toBe(429);
        expect(over.sessionId).toBeNull();
        expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
      }
      expect((await mcp(b, null, initialize, 'POST', betaKey)).status).toBe(200);

      // Closing a session opened on A through B frees its slot for the whole cluster.
      expect((await mcp(b, opened[0].sessionId, {}, 'DELETE', alphaKey)).status).toBe(200);
      const again = await mcp(a, null, initialize, 'POST', alphaKey);
      expect(again.status).toBe(200);
      for (const session of [opened[1], opened[2], again])
        expect((await mcp(a, session.sessionId, {}, 'DELETE', alphaKey)).status).toBe(200);
    });

    it('tool runs: with 2 runs of a tenant in flight, one on A and one on B, a third is refused on either; another tenant runs', async () => {
      const runTool = (base: string, key: string, tool: string, input: Record<string, unknown> = {}) =>
        call(base, key, 'POST', `/ops/tools/${tool}/execute`, { input });
      const created = await call(a, alphaKey, 'POST', '/api/assets', {
        ...toolAsset('hold_tool', 'hold'),
        tool_config: { method: 'GET', url: `${toolBase}/hold`, timeout_ms: 15_000 },
      });
      expect(created.status).toBe(201);
      expect((await call(a, alphaKey, 'POST', `/api/assets/${created.body.id}/publish`)).status).toBe(200);
      for (const base of [a, b])
        await within(
          BOUND_MS,
          () => runTool(base, alphaKey, 'hold_tool'),
          (r) => r.body.success === true,
        );

      holding = true;
      try {
        const inFlight = [runTool(a, alphaKey, 'hold_tool'), runTool(b, alphaKey, 'hold_tool')];
        await within(
          10_000,
          () => Promise.resolve(held.length),
          (n) => n === 2,
        );
        for (const base of [a, b]) {
          const refused = await runTool(base, alphaKey, 'hold_tool');
          expect(refused.status).toBe(429);
          expect(refused.body).toMatchObject({ error: 'TOOLS_BUSY' });
          expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        }
        expect(held.length).toBe(2);
        const other = await runTool(b, betaKey, 'ci_lookup', { keywords: ['payment'] });
        expect(other.status).toBe(200);
        expect(other.body).toMatchObject({ success: true });

        held.splice(0).forEach((answer) => answer());
        for (const reply of await Promise.all(inFlight)) expect(reply.body).toMatchObject({ success: true });
      } finally {
        holding = false;
        held.splice(0).forEach((answer) => answer());
      }
      // The budget is free again on both replicas once the runs finished.
      expect((await runTool(b, alphaKey, 'hold_tool')).body).toMatchObject({ success: true });
      expect((await runTool(a, alphaKey, 'hold_tool')).body).toMatchObject({ success: true });
    });

    it("tool_access rate_per_minute: runs on A and on B share the tenant's window", async () => {
      const policy = await call(a, alphaKey, 'POST', '/api/assets', {
        asset_type: 'policy',
        name: 'caps-access',
        content: {
          policy_type: 'tool_access',
          settings: { tools: { ci_lookup: { rate_per_minute: 2 }, document_search: { roles: ['admin'] } } },
        },
      });
      expect(policy.status).toBe(201);
      expect((await call(a, alphaKey, 'POST', `/api/assets/${policy.body.id}/publish`)).status).toBe(200);
      // The roles rule shows when a replica serves the policy, without spending the rate.
      for (const base of [a, b])
        await within(
          BOUND_MS,
          () =>
            call(base, alphaOperator, 'POST', '/ops/tools/document_search/execute', {
              input: { query: 'probe' },
            }),
          (r) => r.status === 403,
        );

      const lookup = (base: string, key: string) =>
        call(base, key, 'POST', '/ops/tools/ci_lookup/execute', { input: { keywords: ['payment'] } });
      expect((await lookup(a, alphaKey)).status).toBe(200);
      expect((await lookup(b, alphaKey)).status).toBe(200);
      for (const base of [a, b]) {
        const third = await lookup(base, alphaKey);
        expect(third.status).toBe(429);
        expect(third.body.message).toContain('2 times a minute');
      }
      expect((await lookup(b, betaKey)).status).toBe(200);
    });
  });

  it('a worker killed with SIGKILL mid-document is replaced; the document finishes once, with no duplicate chunk', async () => {
    const created = await call(a, adminKey, 'POST', '/api/documents', {
      filename: 'failover.md',
      content: bigDocument,
    });
    expect(created.status).toBe(202);
    const id = created.body.id as string;
    await within(
      30_000,
      () => call(a, adminKey, 'GET', `/api/documents/${id}`),
      (r) => {
        if (r.body.status === 'done')
          throw new Error('the document finished before the worker could be killed');
        return (
          r.body.status === 'processing' &&
          r.body.processing_progress >= 20 &&
          r.body.processing_progress < 80
        );
      },
    );
    worker.child.kill('SIGKILL');
    expect(await worker.exited).toBe('SIGKILL');

    worker = (await start('worker')).proc;
    const done = await within(
      90_000,
      () => call(b, adminKey, 'GET', `/api/documents/${id}`),
      (r) => ['done', 'failed'].includes(r.body.status as string),
    );
    expect(done.body.status).toBe('done');
    const chunks = (await call(b, adminKey, 'GET', `/api/documents/${id}/chunks?limit=1000`)).body
      .items as Array<{
      chunk_index: number;
    }>;
    const indexes = chunks.map((c) => c.chunk_index).sort((x, y) => x - y);
    expect(indexes.length).toBe(done.body.total_chunks);
    expect(indexes).toEqual(indexes.map((_, i) => i));
  });

  it('with Redis stopped, requests keep answering and B still converges (poll); Redis back, the bus carries changes again', async () => {
    const created = await call(a, adminKey, 'POST', '/api/assets', toolAsset('outage_tool', 'outage'));
    redis.kill('SIGKILL');
    await sleep(500);

    expect((await call(a, adminKey, 'GET', '/api/keys')).status).toBe(200);
    expect((await call(b, adminKey, 'POST', '/api/documents/search', { query: 'kumquat' })).status).toBe(200);
    const degraded = await call(b, adminKey, 'GET', '/health/ready');
    expect(degraded.status).toBe(200);
    expect(degraded.body.checks.change_bus.status).toBe('degraded');

    // Published while the bus is down: its message is lost, the change generations carry it.
    expect((await call(a, adminKey, 'POST', `/api/assets/${created.body.id}/publish`)).status).toBe(200);
    await within(
      BOUND_MS,
      () => execute(b, 'outage_tool'),
      (r) => r === 'outage',
    );

    redis = await startRedisServer(redisPort);
    await within(
      15_000,
      () => call(b, adminKey, 'GET', '/health/ready'),
      (r) => r.body.checks?.change_bus?.status === 'ok' && r.body.checks?.cache?.status === 'ok',
    );
    expect((await call(a, adminKey, 'POST', `/api/assets/${created.body.id}/archive`)).status).toBe(200);
    await within(
      BOUND_MS,
      () => execute(b, 'outage_tool'),
      (r) => r === 'TOOL_NOT_FOUND',
    );
  });
});
