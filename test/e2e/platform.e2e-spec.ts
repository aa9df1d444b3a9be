import { startTestApp, TestApp, testBackend } from '@test/support';

describe(`platform over HTTP (${testBackend()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CORS_ORIGINS: 'https://ops.example.com' });
  });
  afterAll(() => t.close());

  describe('health and docs', () => {
    it('answers liveness and readiness without a key, reporting each dependency', async () => {
      expect((await t.request('GET', '/health/live', { key: null })).body).toEqual({ status: 'ok' });
      const ready = await t.request('GET', '/health/ready', { key: null });
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ok');
      expect(ready.body.checks.database).toMatchObject({ status: 'ok', backend: testBackend() });
      expect(ready.body.checks.cache).toMatchObject({
        status: 'ok',
        backend: testBackend() === 'native' ? 'redis' : 'memory',
      });
    });

    it('serves the OpenAPI document publicly', async () => {
      const docs = await t.request('GET', '/docs-json', { key: null });
      expect(docs.status).toBe(200);
      expect(docs.body.openapi).toMatch(/^3\./);
      expect(Object.keys(docs.body.paths)).toEqual(
        expect.arrayContaining(['/api/keys', '/api/tenants', '/health/ready']),
      );
    });
  });

  it('answers CORS preflight for configured origins only', async () => {
    const allowed = await t.request('OPTIONS', '/api/documents/search', {
      key: null,
      headers: { origin: 'https://ops.example.com', 'access-control-request-method': 'POST' },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://ops.example.com');
    const other = await t.request('OPTIONS', '/api/documents/search', {
      key: null,
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  describe('authentication', () => {
    it('rejects a request without a key', async () => {
      const res = await t.request('GET', '/api/keys', { key: null });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'UNAUTHENTICATED', requestId: expect.any(String) });
    });

    it('rejects an unknown key', async () => {
      const res = await t.request('GET', '/api/keys', { key: 'ops_not-a-real-key' });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('UNAUTHENTICATED');
    });

    it('accepts the key as Bearer or X-Api-Key, and rejects it once revoked', async () => {
      const created = await t.request('POST', '/api/keys', { body: { name: 'short-lived', role: 'reader' } });
      expect(created.status).toBe(201);
      const secret: string = created.body.secret;
      expect((await t.request('GET', '/health/ready', { key: secret })).status).toBe(200);
      const viaHeader = await t.request('GET', '/api/keys', { key: null, headers: { 'x-api-key': secret } });
      expect(viaHeader.status).toBe(403);

      const revoked = await t.request('DELETE', `/api/keys/${created.body.key.id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked_at).toEqual(expect.any(String));
      const after = await t.request('GET', '/api/keys', { key: secret });
      expect(after.status).toBe(401);
      expect(after.body.message).toMatch(/revoked/);
    });

    it('rejects an expired key', async () => {
      const created = await t.request('POST', '/api/keys', {
        body: { name: 'expired', role: 'admin', expires_at: new Date(Date.now() - 1000).toISOString() },
      });
      const res = await t.request('GET', '/api/keys', { key: created.body.secret });
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(/expired/);
    });

    it('never returns secrets or hashes when listing keys', async () => {
      const list = await t.request('GET', '/api/keys');
      expect(list.status).toBe(200);
      const text = JSON.stringify(list.body);
      expect(text).not.toMatch(/key_hash|secret/);
      expect(text).not.toContain(t.adminKey);
    });
  });

  describe('roles', () => {
    let readerKey: string;
    let operatorKey: string;
    beforeAll(async () => {
      readerKey = (await t.request('POST', '/api/keys', { body: { name: 'reader', role: 'reader' } })).body
        .secret;
      operatorKey = (await t.request('POST', '/api/keys', { body: { name: 'op', role: 'operator' } })).body
        .secret;
    });

    it('gives a reader 403 on admin routes', async () => {
      for (const [method, route, body] of [
        ['GET', '/api/keys', undefined],
        ['POST', '/api/keys', { name: 'x', role: 'admin' }],
        ['DELETE', '/api/keys/00000000-0000-0000-0000-000000000000', undefined],
        ['POST', '/api/tenants', { slug: 'nope' }],
      ] as const) {
        const res = await t.request(method, route, { key: readerKey, body });
        expect(res.status).toBe(403);
        expect(res.body.error).toBe('FORBIDDEN');
      }
    });

    it('gives an operator 403 on admin routes', async () => {
      expect(
        (await t.request('POST', '/api/keys', { key: operatorKey, body: { name: 'x', role: 'admin' } }))
          .status,
      ).toBe(403);
    });
  });

  describe('tenants', () => {
    it('creates a tenant whose admin sees and manages only its own keys', async () => {
      const created = await t.request('POST', '/api/tenants', { body: { slug: 'acme', name: 'Acme' } });
      expect(created.status).toBe(201);
      expect(created.body.tenant).toMatchObject({ slug: 'acme', name: 'Acme' });
      const acmeAdmin: string = created.body.secret;

      const own = await t.request('GET', '/api/keys', { key: acmeAdmin });
      expect(own.status).toBe(200);
      expect(own.body.keys.map((k: { tenant_slug: string }) => k.tenant_slug)).toEqual(['acme']);

      const defaultKeys = (await t.request('GET', '/api/keys')).body.keys as Array<{ id: string }>;
      const foreign = await t.request('DELETE', `/api/keys/${defaultKeys[0].id}`, { key: acmeAdmin });
      expect(foreign.status).toBe(404);

      const tenantAdminCreatesTenant = await t.request('POST', '/api/tenants', {
        key: acmeAdmin,
        body: { slug: 'other' },
      });
      expect(tenantAdminCreatesTenant.status).toBe(403);

      const duplicate = await t.request('POST', '/api/tenants', { body: { slug: 'acme' } });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.error).toBe('TENANT_EXISTS');
    });

    it('lets the system admin create keys in another tenant', async () => {
      await t.request('POST', '/api/tenants', { body: { slug: 'globex' } });
      const key = await t.request('POST', '/api/tenants/globex/keys', {
        body: { name: 'ci', role: 'operator', user_id: 'ci-bot' },
      });
      expect(key.status).toBe(201);
      expect(key.body.key).toMatchObject({ tenant_slug: 'globex', role: 'operator', user_id: 'ci-bot' });
      const listed = await t.request('GET', '/api/tenants/globex/keys');
      expect(listed.body.keys).toHaveLength(2);
    });
  });

  describe('bad input', () => {
    it('rejects unknown properties with 400 naming them', async () => {
      const res = await t.request('POST', '/api/keys', {
        body: { name: 'x', role: 'reader', tenant_id: 'someone-else' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_FAILED');
      expect(res.body.details.fields).toEqual([
        { field: 'tenant_id', errors: [expect.stringMatching(/should not exist/)] },
      ]);
    });

    it('names every invalid field', async () => {
      const res = await t.request('POST', '/api/keys', { body: { name: '', role: 'root' } });
      expect(res.status).toBe(400);
      expect(res.body.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(['name', 'role']);
    });

    it('answers malformed JSON with 400', async () => {
      const res = await t.request('POST', '/api/keys', {
        rawBody: '{"name":',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: expect.any(String),
        message: expect.any(String),
        requestId: expect.any(String),
      });
    });

    it('answers an unknown route with a JSON 404', async () => {
      const res = await t.request('GET', '/api/nothing-here');
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
    });

    it('echoes X-Request-Id in the header and the error body', async () => {
      const res = await t.request('GET', '/api/keys', {
        key: null,
        headers: { 'x-request-id': 'trace-me-123' },
      });
      expect(res.headers.get('x-request-id')).toBe('trace-me-123');
      expect(res.body.requestId).toBe('trace-me-123');
    });
  });
});
