import { testBackend, useCrashServer } from '@test/support';

interface Chunk {
  chunk_index: number;
  text: string;
  source_hash: string;
  page_number: number | null;
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
  const server = useCrashServer({ EMBEDDINGS_MODEL: 'crash-test' });
  const { adminKey, call } = server;

  const chunksOf = async (base: string, key: string, id: string): Promise<Chunk[]> =>
    (await call(base, key, 'GET', `/api/documents/${id}/chunks?limit=1000`)).body.items.map((c: Chunk) => ({
      chunk_index: c.chunk_index,
      text: c.text,
      source_hash: c.source_hash,
      page_number: c.page_number,
    }));

  it('loses no document and duplicates no chunk, ending as a clean run does', async () => {
    let { running, base } = await server.start();
    const big = await call(base, adminKey, 'POST', '/api/documents', {
      filename: 'failover.md',
      content: bigDocument,
    });
    const small = [];
    for (const doc of smallDocuments) small.push(await call(base, adminKey, 'POST', '/api/documents', doc));
    const ids = [big.body.id as string, ...small.map((s) => s.body.id as string)];

    // Kill while the big document is part-way through its embedding batches.
    await server.killMidDocument(running, base, adminKey, big.body.id);

    ({ running, base } = await server.start());
    const docs = await server.waitAllDone(base, adminKey, ids);

    // The clean run: the same documents in a fresh tenant, never interrupted.
    const clean = (await call(base, adminKey, 'POST', '/api/tenants', { slug: 'clean-run' })).body
      .secret as string;
    const cleanIds: string[] = [];
    for (const doc of [{ filename: 'failover.md', content: bigDocument }, ...smallDocuments]) {
      cleanIds.push((await call(base, clean, 'POST', '/api/documents', doc)).body.id);
    }
    await server.waitAllDone(base, clean, cleanIds);
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

    await server.stop();
  });
});
