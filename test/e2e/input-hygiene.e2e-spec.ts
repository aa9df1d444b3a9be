import { startTestApp, TestApp, testBackend } from '@test/support';

/** Issue 13, finding 10: hostile input is a 400 naming the problem, never a 500. */
describe(`input hygiene (${testBackend()})`, () => {
  let t: TestApp;
  let assetId: string;
  beforeAll(async () => {
    t = await startTestApp();
    const created = await t.request('POST', '/api/assets', {
      body: { asset_type: 'prompt', name: 'hygiene', scope: 's', engine: 'e', template: 't' },
    });
    expect(created.status).toBe(201);
    assetId = created.body.id;
    expect((await t.request('POST', `/api/assets/${assetId}/publish`)).status).toBe(200);
  });
  afterAll(() => t.close());

  const expectBadRequest = (res: { status: number; body: any }, error?: string): void => {
    expect({ status: res.status, body: res.body }).toMatchObject({
      status: 400,
      body: { error: error ?? expect.any(String), requestId: expect.any(String) },
    });
  };

  it('rejects JSON nested 100,000 deep before validation', async () => {
    const deep = `{"name":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    for (const route of ['/api/keys', '/api/documents/search', '/api/assets']) {
      const res = await t.request('POST', route, {
        rawBody: deep,
        headers: { 'content-type': 'application/json' },
      });
      expectBadRequest(res, 'PAYLOAD_TOO_DEEP');
    }
    const shallow = `{"query":"x","filters":${'{"a":'.repeat(10)}1${'}'.repeat(10)}}`;
    const ok = await t.request('POST', '/api/documents/search', {
      rawBody: shallow,
      headers: { 'content-type': 'application/json' },
    });
    expect(ok.body.error).not.toBe('PAYLOAD_TOO_DEEP');
  });

  it('rejects NUL and lone surrogates in stored strings, naming the field', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/api/tenants', { slug: 'nul-tenant', name: 'a\u0000b' }, 'name'],
      ['POST', '/api/keys', { name: 'k\u0000', role: 'reader' }, 'name'],
      ['POST', '/api/keys', { name: 'k', role: 'reader', user_id: 'u\u0000' }, 'user_id'],
      ['POST', '/api/keys', { name: 'lone \ud800 surrogate', role: 'reader' }, 'name'],
      ['PATCH', `/api/assets/${'x'}`, { description: 'd\u0000' }, 'description'],
      [
        'POST',
        '/api/documents',
        { filename: 'a.md', content: 'x', metadata: { team: 's\u0000re' } },
        'metadata.team',
      ],
    ];
    for (const [method, route, body, field] of cases) {
      const res = await t.request(method, route.replace('/x', `/${assetId}`), { body });
      expectBadRequest(res, 'INVALID_CHARACTERS');
      expect(res.body.details.fields).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    }
  });

  it('rejects NUL in multipart fields and metadata', async () => {
    const form = new FormData();
    form.append('file', new Blob(['# hi']), 'a.md');
    form.append('metadata', JSON.stringify({ stage_name: 'x\u0000' }));
    const res = await fetch(`${t.url}/api/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminKey}` },
      body: form,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('INVALID_CHARACTERS');
  });

  it('rejects content: null on document create and update', async () => {
    const created = await t.request('POST', '/api/documents', { body: { filename: 'n.md', content: null } });
    expectBadRequest(created, 'VALIDATION_FAILED');
    expect(created.body.message).toMatch(/content/);
    const doc = await t.request('POST', '/api/documents', { body: { filename: 'n.md', content: '# n' } });
    expect(doc.status).toBe(202);
    const updated = await t.request('PUT', `/api/documents/${doc.body.id}`, {
      body: { filename: 'n.md', content: null },
    });
    expectBadRequest(updated, 'VALIDATION_FAILED');
  });

  it('bounds every offset, version and route number', async () => {
    expectBadRequest(await t.request('GET', '/api/assets?offset=99999999999999999999'));
    expectBadRequest(await t.request('GET', '/api/documents?offset=99999999999999999999'));
    expectBadRequest(await t.request('GET', '/api/chat/conversations?offset=99999999999999999999'));
    expectBadRequest(
      await t.request('POST', `/api/assets/${assetId}/rollback`, { body: { version: 2 ** 53 } }),
    );
    expectBadRequest(
      await t.request('POST', `/api/assets/${assetId}/rollback`, { body: { version: 2 ** 31 } }),
    );
    expectBadRequest(await t.request('GET', `/api/assets/${assetId}/versions/99999999999999`));
    expectBadRequest(await t.request('GET', `/api/assets/${assetId}/diff?from=99999999999999&to=1`));
    expect((await t.request('GET', `/api/assets/${assetId}/versions/2147483647`)).status).toBe(404);
    expectBadRequest(await t.request('GET', '/api/assets?search=%25_%5C%00'));
    expectBadRequest(await t.request('GET', '/api/assets/published/tool/%00'));
  });

  it('matches LIKE metacharacters in search literally', async () => {
    const res = await t.request('GET', '/api/assets?search=%25_%5C');
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([]);
  });
});
