import { createTestDatabase, TestDatabase } from './test-database';
import { EmbeddingsServer, startEmbeddingsServer } from './embeddings-server';
import { buildDist, freePort, runNode, RunningProcess, sleep } from './processes';
import { generateTestApiKey } from './test-keys';

const MAIN = 'dist/apps/api/src/main.js';

export interface CrashServerCall {
  status: number;
  body: Record<string, any>;
}

/** The built server a crash test starts, kills and starts again, on one test database. */
export interface CrashServer {
  readonly adminKey: string;
  /** The spec file's database (set once `beforeAll` ran). */
  readonly database: TestDatabase;
  /** Starts the built server (the previous one must have exited) and waits until it listens. */
  start(): Promise<{ running: RunningProcess; base: string }>;
  call(base: string, key: string, method: string, route: string, body?: unknown): Promise<CrashServerCall>;
  /** Waits until every document is `done` (throws on `failed`, or with the server's output after `timeoutMs`). */
  waitAllDone(base: string, key: string, ids: string[], timeoutMs?: number): Promise<Record<string, any>[]>;
  /** Waits until the document is 20-80% through processing, then SIGKILLs the server. */
  killMidDocument(running: RunningProcess, base: string, key: string, documentId: string): Promise<void>;
  /** SIGTERMs the running server and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * The set-up every crash test of the ingestion shares: registers `beforeAll`/`afterAll` that build the
 * server, create the test database and a slow stand-in embeddings endpoint (so a document is still
 * embedding when the test kills the server), and kill whatever is left running at the end.
 * `env` adds or overrides the server's settings (the embeddings model name, queue thresholds).
 */
export function useCrashServer(env: Record<string, string>): CrashServer {
  const adminKey = generateTestApiKey();
  let database: TestDatabase | undefined;
  let embeddings: EmbeddingsServer | undefined;
  let current: RunningProcess | undefined;

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    embeddings = await startEmbeddingsServer({ dimensions: 32, delayMs: 150 });
  });
  afterAll(async () => {
    current?.child.kill('SIGKILL');
    await embeddings?.close();
    await database?.drop();
  });

  const call = async (base: string, key: string, method: string, route: string, body?: unknown) => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  return {
    adminKey,
    get database() {
      if (!database) throw new Error('the crash server database exists once beforeAll ran');
      return database;
    },
    call,
    async start() {
      const port = await freePort();
      const running = runNode(MAIN, {
        ...this.database.env,
        PORT: String(port),
        ADMIN_API_KEY: adminKey,
        WRITE_ADMIN_KEY_FILE: 'false',
        LOG_LEVEL: 'warn',
        EMBEDDINGS_BASE_URL: embeddings!.url,
        EMBEDDINGS_DIMENSIONS: '32',
        EMBEDDINGS_BATCH_SIZE: '4',
        DOCUMENTS_CHUNK_TARGET_CHARS: '200',
        DOCUMENTS_JOB_LEASE_SECONDS: '2',
        ...env,
      });
      current = running;
      await running.waitForOutput(/listening on/);
      return { running, base: `http://127.0.0.1:${port}` };
    },
    async waitAllDone(base, key, ids, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const docs = await Promise.all(ids.map((id) => call(base, key, 'GET', `/api/documents/${id}`)));
        if (docs.every((d) => d.body.status === 'done')) return docs.map((d) => d.body);
        if (docs.some((d) => d.body.status === 'failed'))
          throw new Error(JSON.stringify(docs.map((d) => d.body)));
        if (Date.now() > deadline)
          throw new Error(
            `not done: ${JSON.stringify(docs.map((d) => d.body.status))}\n${current?.output().slice(-3000)}`,
          );
        await sleep(200);
      }
    },
    async killMidDocument(running, base, key, documentId) {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const doc = await call(base, key, 'GET', `/api/documents/${documentId}`);
        if (
          doc.body.status === 'processing' &&
          doc.body.processing_progress >= 20 &&
          doc.body.processing_progress < 80
        )
          break;
        if (Date.now() > deadline || doc.body.status === 'done')
          throw new Error(`missed the window: ${JSON.stringify(doc.body)}`);
        await sleep(30);
      }
      running.child.kill('SIGKILL');
      if ((await running.exited) !== 'SIGKILL') throw new Error('the server exited before it was killed');
    },
    async stop() {
      const running = current;
      current = undefined;
      running?.child.kill('SIGTERM');
      await running?.exited;
    },
  };
}
