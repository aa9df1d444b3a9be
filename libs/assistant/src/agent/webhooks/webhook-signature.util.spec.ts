import { createHmac } from 'node:crypto';
import { signatureHeader, webhookSignature } from './webhook-signature.util';

describe('run webhook signatures', () => {
  const secret = 'whsec_test_0123456789';
  const body = '{"id":"d-1","type":"run.completed"}';

  it('signs "<timestamp>.<body>" with HMAC-SHA256, as a receiver recomputes it with any HMAC library', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(webhookSignature(secret, 1700000000, body)).toBe(expected);
    expect(signatureHeader(secret, 1700000000, body)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('changes with the body, the timestamp and the secret', () => {
    const base = webhookSignature(secret, 1700000000, body);
    expect(webhookSignature(secret, 1700000000, `${body} `)).not.toBe(base);
    expect(webhookSignature(secret, 1700000001, body)).not.toBe(base);
    expect(webhookSignature('another-secret', 1700000000, body)).not.toBe(base);
  });
});
