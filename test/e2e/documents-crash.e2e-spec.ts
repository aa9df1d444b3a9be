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
  TestDatabase,
  testBackend,
} from '@test/support';

const MAIN = 'dist/apps/api/src/main.js';

interface Chunk {
  chunk_index: number;
  text: string;
  source_hash: string;
  page_number: number | null;
}

async function call(base: string, key: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const bigDocument = Array.from(
  { length: 60 },
  (_, i) =>
    `## Step ${i}\n\nCheck replica ${i} lag, then confirm the failover target for shard ${i} is healthy.`,
).join('\n\n');
const smallDocuments = ['alpha', 'beta', 'gamma'].map((name) => ({
  filename: `${name}.md`,
  content: `# ${name}\n\nRunbook ${name} restarts the ${name} service.`,
}));

describe(`ingestion killed with SIGKILL mid-document (${testBackend()})`, () => {
  let database: TestDatabase;
  let embeddings: EmbeddingsServer;
  let proc: RunningProcess | undefined;
  const adminKey = generateTestApiKey();

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    embeddings = await startEmbeddingsServer({ dimensions: 32, delayMs: 150 });
  });
  afterAll(async () => {
    proc?.child.kill('SIGKILL');
    await embeddings.close();
    await database.drop();
  });

  const start = async () => {
    const port = await freePort();
    const running = runNode(MAIN, {
      ...database.env,
      PORT: String(port),
      ADMIN_API_KEY: adminKey,
      WRITE_ADMIN_KEY_FILE: 'false',
      LOG_LEVEL: 'warn',
      EMBEDDINGS_BASE_URL: embeddings.url,
      EMBEDDINGS_MODEL: 'crash-test',
      EMBEDDINGS_DIMENSIONS: '32',
      EMBEDDINGS_BATCH_SIZE: '4',
      DOCUMENTS_CHUNK_TARGET_CHARS: '200',
      DOCUMENTS_JOB_LEASE_SECONDS: '2',
    });
    await running.waitForOutput(/listening on/);
    return { running, base: `http://127.0.0.1:${port}` };
  };

  const waitAllDone = async (base: string, ids: string[]) => {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const docs = await Promise.all(ids.map((id) => call(base, adminKey, 'GET', `/api/documents/${id}`)));
      if (docs.every((d) => d.body.status === 'done')) return docs.map((d) => d.body);
      if (docs.some((d) => d.body.status === 'failed'))
        throw new Error(JSON.stringify(docs.map((d) => d.body)));
      if (Date.now() > deadline)
        throw new Error(
          `not done: ${JSON.stringify(docs.map((d) => d.body.status))}\n${proc?.output().slice(-3000)}`,
        );
      await sleep(200);
    }
  };

  const chunksOf = async (base: string, key: string, id: string): Promise<Chunk[]> =>
    (await call(base, key, 'GET', `/api/documents/${id}/chunks?limit=1000`)).body.items.map((c: Chunk) => ({
      chunk_index: c.chunk_index,
      text: c.text,
      source_hash: c.source_hash,
      page_number: c.page_number,
    }));

  it('loses no document and duplicates no chunk, ending as a clean run does', async () => {
    let { running, base } = await start();
    proc = running;
    const big = await call(base, adminKey, 'POST', '/api/documents', {
      filename: 'failover.md',
      content: bigDocument,
    });
    const small = [];
    for (const doc of smallDocuments) small.push(await call(base, adminKey, 'POST', '/api/documents', doc));
    const ids = [big.body.id as string, ...small.map((s) => s.body.id as string)];

    // Kill while the big document is part-way through its embedding batches.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const doc = await call(base, adminKey, 'GET', `/api/documents/${big.body.id}`);
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
    expect(await running.exited).toBe('SIGKILL');

    ({ running, base } = await start());
    proc = running;
    const docs = await waitAllDone(base, ids);

    // The clean run: the same documents in a fresh tenant, never interrupted.
    const clean = (await call(base, adminKey, 'POST', '/api/tenants', { slug: 'clean-run' })).body
      .secret as string;
    const cleanIds: string[] = [];
    for (const doc of [{ filename: 'failover.md', content: bigDocument }, ...smallDocuments]) {
      cleanIds.push((await call(base, clean, 'POST', '/api/documents', doc)).body.id);
    }
    const deadlineClean = Date.now() + 90_000;
    while (
      (await Promise.all(cleanIds.map((id) => call(base, clean, 'GET', `/api/documents/${id}`)))).some(
        (d) => d.body.status !== 'done',
      )
    ) {
      if (Date.now() > deadlineClean) throw new Error('clean run did not finish');
      await sleep(200);
    }
    for (let i = 0; i < ids.length; i++) {
      const crashed = await chunksOf(base, adminKey, ids[i]);
      const reference = await chunksOf(base, clean, cleanIds[i]);
      expect(crashed).toEqual(reference);
      expect(docs[i].total_chunks).toBe(reference.length);
      expect(new Set(crashed.map((c) => c.chunk_index)).size).toBe(crashed.length);
    }
    expect(docs[0].total_chunks).toBeGreaterThan(20);
    const list = await call(base, adminKey, 'GET', '/api/documents?limit=100');
    expect(list.body.total).toBe(ids.length);

    running.child.kill('SIGTERM');
    await running.exited;
    proc = undefined;
  });
});
