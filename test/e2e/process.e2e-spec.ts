import { mkdtempSync, rmSync, statSync, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RedisCircuitBreaker } from '@app/platform';
import {
  buildDist,
  freePort,
  runNode,
  sleep,
  startRedisServer,
  startTestApp,
  testBackend,
  within,
} from '@test/support';

const MAIN = 'dist/apps/api/src/main.js';

describe(`the server as a process (${testBackend()})`, () => {
  let dataDir: string;
  beforeAll(() => {
    buildDist();
  });
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-test-proc-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses to boot on invalid configuration, listing every bad key of every lib at once', async () => {
    const proc = runNode(MAIN, {
      PORT: 'eighty',
      DATABASE_URL: 'mysql://db',
      REDIS_URL: 'localhost:6379',
      DOCUMENTS_SEARCH_FUSION: 'sum',
      MCP_MAX_SESSIONS: '0',
      LLM_TEMPERATURE: '9',
      CHAT_TOP_K: '0',
      DATA_DIR: dataDir,
    });
    expect(await proc.exited).toBe(1);
    const output = proc.output();
    expect(output).toMatch(/Invalid configuration/);
    expect(output).toMatch(/- PORT=eighty/);
    expect(output).toMatch(/- DATABASE_URL=mysql:\/\/db/);
    expect(output).toMatch(/- REDIS_URL=localhost:6379/);
    // Keys of the documents, tools, planner and assistant libs, in the same error.
    expect(output).toMatch(/- DOCUMENTS_SEARCH_FUSION=sum/);
    expect(output).toMatch(/- MCP_MAX_SESSIONS=0/);
    expect(output).toMatch(/- LLM_TEMPERATURE=9/);
    expect(output).toMatch(/- CHAT_TOP_K=0/);
    expect(output.match(/^Invalid configuration/gm)).toHaveLength(1);
  });

  it('first start on embedded defaults: ready, writes the admin key only to a 0600 file (output shows its prefix and path); a second process on the same data directory is refused', async () => {
    const port = await freePort();
    const first = runNode(MAIN, { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    try {
      await first.waitForOutput(/listening on/);
      const keyFile = path.join(dataDir, 'admin-key');
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      const key = readFileSync(keyFile, 'utf8').trim();
      expect(key).toMatch(/^ops_.{40,}$/);
      await first.waitForOutput(/First start/);
      expect(first.output()).not.toContain(key);
      expect(first.output()).not.toContain(key.slice(0, 16));
      expect(first.output()).toContain(`${key.slice(0, 12)}…`);
      expect(first.output()).toContain(keyFile);

      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
      expect(ready.status).toBe(200);
      const keys = await fetch(`http://127.0.0.1:${port}/api/keys`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(keys.status).toBe(200);

      const second = runNode(MAIN, { PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
      expect(await second.exited).toBe(1);
      expect(second.output()).toMatch(/is in use by process \d+/);
      expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
    }
    // Nest re-raises the signal after a graceful shutdown; the removed lock file shows the hooks ran.
    expect([0, 'SIGTERM']).toContain(await first.exited);
    expect(existsSync(path.join(dataDir, 'ops.lock'))).toBe(false);

    const restarted = runNode(MAIN, { PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    try {
      await restarted.waitForOutput(/listening on/);
      expect(restarted.output()).not.toMatch(/First start/);
    } finally {
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
  });

  it('refuses a first start that could hand the generated admin key to no one', async () => {
    const proc = runNode(MAIN, {
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      WRITE_ADMIN_KEY_FILE: 'false',
      LOG_LEVEL: 'warn',
    });
    // A bound on the wait, not a timing assertion: the refusal comes after the embedded database is
    // created and migrated, which took over 30 s on a loaded 2-core machine.
    const exited = await within(proc.exited, 120_000, 'still running');
    proc.child.kill('SIGKILL');
    expect(exited).toBe(1);
    expect(proc.output()).toMatch(/ADMIN_API_KEY/);
    expect(proc.output()).not.toMatch(/ops_[A-Za-z0-9_-]{20,}/);
  }, 180_000);
});

describe(`requests with Redis stopped (${testBackend()})`, () => {
  it('keep working, and readiness reports the cache as degraded', async () => {
    const port = await freePort();
    const redis = await startRedisServer(port);
    const t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_COMMAND_TIMEOUT_MS: '200' });
    try {
      let ready = await t.request('GET', '/health/ready', { key: null });
      expect(ready.body.checks.cache).toMatchObject({ status: 'ok', backend: 'redis' });

      redis.kill('SIGKILL');
      await sleep(300);
      const keys = await t.request('GET', '/api/keys');
      expect(keys.status).toBe(200);
      const created = await t.request('POST', '/api/keys', {
        body: { name: 'during outage', role: 'reader' },
      });
      expect(created.status).toBe(201);

      ready = await t.request('GET', '/health/ready', { key: null });
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('degraded');
      expect(ready.body.checks.cache).toMatchObject({ status: 'degraded', backend: 'redis' });
      expect(ready.body.checks.database.status).toBe('ok');
    } finally {
      redis.kill('SIGKILL');
      await t.close();
    }
  });
});

describe(`requests with Redis frozen (${testBackend()})`, () => {
  it('pay one Redis command timeout in all (rate limit, auth and search caches share one circuit)', async () => {
    // SIGSTOP keeps the connections open, so every command sent would wait for its timeout.
    const port = await freePort();
    const redis = await startRedisServer(port);
    const t = await startTestApp({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_COMMAND_TIMEOUT_MS: '200',
      REDIS_CIRCUIT_COOLDOWN_MS: '600000',
    });
    try {
      const search = () =>
        t.request('POST', '/api/documents/search', { body: { query: 'certificate rotation' } });
      expect((await search()).status).toBe(200);
      const circuit = t.app.get(RedisCircuitBreaker);
      expect(circuit.failedCommands).toBe(0);

      redis.kill('SIGSTOP');
      try {
        for (let i = 0; i < 3; i++) expect((await search()).status).toBe(200);
        const ready = await t.request('GET', '/health/ready', { key: null });
        expect(ready.body.checks.cache).toMatchObject({ status: 'degraded', backend: 'redis' });
      } finally {
        redis.kill('SIGCONT');
      }
      // One command was sent and timed out; every later one (rate limit, key lookup, search cache) was skipped.
      expect(circuit.failedCommands).toBe(1);
      expect(circuit.skippedCommands).toBeGreaterThan(3);
    } finally {
      redis.kill('SIGKILL');
      await t.close();
    }
  });
});
