import { EgressPolicy } from '@app/platform';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { AddressResolver, OutboundHttpClient } from './outbound-http.client';

function request(client: OutboundHttpClient, url: string) {
  return client.request({
    method: 'GET',
    url,
    headers: {},
    timeoutMs: 2000,
    maxResponseBytes: 1024,
    signal: new AbortController().signal,
  });
}

describe('OutboundHttpClient name resolution', () => {
  let server: http.Server;
  let port: number;
  let hosts: string[];

  beforeAll(async () => {
    hosts = [];
    server = http.createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses a name that resolves to a private address, before connecting', async () => {
    const resolver: AddressResolver = () => Promise.resolve([{ address: '10.0.0.1', family: 4 }]);
    const client = new OutboundHttpClient(EgressPolicy.fromAllowlist(''), resolver);
    await expect(request(client, 'https://intranet.example/x')).rejects.toMatchObject({
      code: 'ADDRESS_BLOCKED',
      details: { address: '10.0.0.1', reason: 'private' },
    });
  });

  it('refuses when any of several answers is internal (no picking the public one)', async () => {
    const resolver: AddressResolver = () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address: '::ffff:169.254.169.254', family: 6 },
      ]);
    const client = new OutboundHttpClient(EgressPolicy.fromAllowlist(''), resolver);
    await expect(request(client, 'http://mixed.example/')).rejects.toMatchObject({ code: 'ADDRESS_BLOCKED' });
  });

  it('connects to the vetted address, resolving once, and keeps the name in the Host header', async () => {
    let lookups = 0;
    const resolver: AddressResolver = () => {
      lookups++;
      return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    };
    const client = new OutboundHttpClient(EgressPolicy.fromAllowlist(`blog.test:${port}`), resolver);
    const response = await request(client, `http://blog.test:${port}/posts`);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString())).toEqual({ ok: true });
    expect(hosts).toEqual([`blog.test:${port}`]);
    expect(lookups).toBe(1);
  });

  it('reports names that do not resolve', async () => {
    const resolver: AddressResolver = () =>
      Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }));
    const client = new OutboundHttpClient(EgressPolicy.fromAllowlist(''), resolver);
    await expect(request(client, 'https://no-such-host.example/')).rejects.toMatchObject({
      code: 'DNS_FAILED',
      details: { reason: 'ENOTFOUND' },
    });
  });

  it('allows only http and https', async () => {
    const client = new OutboundHttpClient(EgressPolicy.fromAllowlist(''));
    for (const url of ['file:///etc/passwd', 'gopher://x.example/', 'ftp://x.example/']) {
      await expect(request(client, url)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    }
  });
});
