#!/usr/bin/env node
// An example receiver of agent run webhooks (`callback_url` of POST /internal/v1/llm/execute): it checks
// each request's signature the way a receiver of yours should, answers 2xx once it has the event, and
// keeps the events in memory. No dependencies.
//
//   POST <any path>  -> 204 (verified), 401 (bad or old signature), 400 (not JSON)
//   GET  /events?type=run.completed&run_id=…&wait=10  -> 200 { events: [...] } (waits up to `wait` s for one)
//
//   WEBHOOK_SIGNING_SECRET=<the tenant's secret> node examples/webhook-receiver/server.mjs --port 4020
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.HOOK_PORT ?? '4020' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});
const secret = process.env.WEBHOOK_SIGNING_SECRET;
if (!secret) {
  console.error('set WEBHOOK_SIGNING_SECRET to the value stored as the tenant secret WEBHOOK_SIGNING_SECRET');
  process.exit(2);
}
/** Older signatures are refused, so a captured request cannot be replayed later. */
const TOLERANCE_SECONDS = 300;
const MAX_BODY_BYTES = 1024 * 1024;
const events = [];
const seen = new Set();

/** X-Ops-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> (several v1 may be listed). */
function verify(header, rawBody) {
  const fields = String(header ?? '')
    .split(',')
    .map((part) => part.trim().split('='));
  const timestamp = Number(fields.find(([key]) => key === 't')?.[1]);
  if (!Number.isSafeInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > TOLERANCE_SECONDS)
    return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  return fields.some(
    ([key, value]) =>
      key === 'v1' &&
      /^[0-9a-f]{64}$/.test(value ?? '') &&
      timingSafeEqual(Buffer.from(value, 'hex'), expected),
  );
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://receiver');
  if (req.method === 'GET' && url.pathname === '/events') {
    const wanted = (event) =>
      (!url.searchParams.get('type') || event.type === url.searchParams.get('type')) &&
      (!url.searchParams.get('run_id') || event.data?.run_id === url.searchParams.get('run_id'));
    const deadline = Date.now() + Math.min(Number(url.searchParams.get('wait') ?? 0) || 0, 60) * 1000;
    const answer = () => {
      const found = events.filter(wanted);
      if (found.length || Date.now() >= deadline) return send(res, 200, { events: found });
      setTimeout(answer, 100);
    };
    return answer();
  }
  if (req.method !== 'POST') return send(res, 405, { error: 'POST events here' });
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    // Verify the raw bytes: parsing and re-serialising JSON would change them.
    const raw = Buffer.concat(chunks).toString('utf8');
    if (size > MAX_BODY_BYTES || !verify(req.headers['x-ops-signature'], raw))
      return send(res, 401, { error: 'bad signature' });
    let event;
    try {
      event = JSON.parse(raw);
    } catch {
      return send(res, 400, { error: 'not JSON' });
    }
    // At least once: a retry repeats the delivery id (X-Ops-Delivery, the body's id); handle it once.
    if (!seen.has(event.id)) {
      seen.add(event.id);
      events.push(event);
      console.log(`${event.type} run ${event.data?.run_id} (delivery ${event.id})`);
    }
    send(res, 204);
  });
});

server.listen(Number(values.port), values.host, () => {
  const { address, port } = server.address();
  console.log(`example webhook receiver listening on http://${address}:${port}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
