import { Client } from 'pg';
import { NATIVE_ADMIN_URL, startTestApp, TestApp, testBackend, withDatabase } from '@test/support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Issue 13, finding 16: backends terminated under load are a retried read or a 503, never a 500. */
const describeNative = testBackend() === 'native' ? describe : describe.skip;

describeNative('database outage (native)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    const doc = await t.request('POST', '/api/documents', {
      body: { filename: 'runbook.md', content: '# Restart\nRestart the payment service on Thursdays.' },
    });
    expect(doc.status).toBe(202);
  });
  afterAll(() => t.close());

  it('answers 60 concurrent searches with 200 or 503 while backends are terminated', async () => {
    // A superuser, as a DBA or a server restart would: the app's pools log in as several roles.
    const database = new URL(t.database.env.DATABASE_URL).pathname.slice(1);
    const terminator = new Client({ connectionString: withDatabase(NATIVE_ADMIN_URL, database) });
    await terminator.connect();
    let searching = true;
    const searches = Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        t.request('POST', '/api/documents/search', {
          body: { query: `restart payment ${i}`, search_type: 'text' },
        }),
      ),
    ).finally(() => {
      searching = false;
    });
    let terminated = 0;
    for (let round = 0; round < 5 && searching; round++) {
      const result = await terminator.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      terminated += result.rowCount ?? 0;
      await sleep(15);
    }
    const responses = await searches;
    await terminator.end();

    const statuses = responses.map((r) => r.status);
    expect(terminated).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    for (const res of responses.filter((r) => r.status === 503)) {
      expect(res.body.error).toBe('DATABASE_UNAVAILABLE');
      expect(res.headers.get('retry-after')).toBe('2');
    }
    // After the storm the pool has recovered.
    const after = await t.request('POST', '/api/documents/search', {
      body: { query: 'restart', search_type: 'text' },
    });
    expect(after.status).toBe(200);
  });
});
