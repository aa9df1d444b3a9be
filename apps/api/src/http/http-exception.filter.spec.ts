import { ArgumentsHost, NotFoundException } from '@nestjs/common';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { AppException, ErrorKind } from '@app/platform';
import { HttpExceptionFilter } from './http-exception.filter';

function respond(exception: unknown): {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
} {
  const captured = { status: 0, body: {} as Record<string, unknown>, headers: {} as Record<string, string> };
  const response = {
    headersSent: false,
    getHeader: (name: string) => captured.headers[name.toLowerCase()],
    setHeader: (name: string, value: string) => {
      captured.headers[name.toLowerCase()] = value;
    },
    status(code: number) {
      captured.status = code;
      return this;
    },
    json(body: Record<string, unknown>) {
      captured.body = body;
    },
  };
  const host = {
    switchToHttp: () => ({
      getResponse: () => response,
      getRequest: () => ({ headers: { 'x-request-id': 'req-1' }, method: 'GET', originalUrl: '/x' }),
    }),
  } as unknown as ArgumentsHost;
  new HttpExceptionFilter().catch(exception, host);
  return captured;
}

describe('HttpExceptionFilter', () => {
  it('maps coded exceptions by kind and keeps code, details and request id', () => {
    const result = respond(new AppException('THING_MISSING', ErrorKind.NOT_FOUND, 'No thing', { id: 1 }));
    expect(result).toMatchObject({
      status: 404,
      body: { error: 'THING_MISSING', message: 'No thing', details: { id: 1 }, requestId: 'req-1' },
    });
    expect(respond(new AppException('TOO_BIG', ErrorKind.PAYLOAD_TOO_LARGE, 'big')).status).toBe(413);
    expect(respond(new AppException('MEDIA', ErrorKind.UNSUPPORTED_MEDIA_TYPE, 'type')).status).toBe(415);
  });

  it('sends the wait a coded 429 names as Retry-After, with the JSON error body', () => {
    const full = new AppException('DIFF_QUEUE_FULL', ErrorKind.RATE_LIMITED, 'Queue full', {
      limit: { key: 'CODE_MAX_QUEUED_DIFFS_PER_TENANT', limit: 2, observed: 3 },
      retry_after_seconds: 30,
    });
    expect(respond(full)).toMatchObject({
      status: 429,
      headers: { 'retry-after': '30' },
      body: { error: 'DIFF_QUEUE_FULL', message: 'Queue full', requestId: 'req-1' },
    });
    expect(respond(new AppException('BUSY', ErrorKind.RATE_LIMITED, 'busy')).headers).toEqual({});
  });

  it('keeps framework HTTP errors as JSON with a code', () => {
    expect(respond(new NotFoundException('Cannot GET /nope'))).toMatchObject({
      status: 404,
      body: { error: 'NOT_FOUND' },
    });
  });

  it('answers 503 with Retry-After when the database cannot be reached', () => {
    const terminated = (code: string) =>
      new QueryFailedError('SELECT 1', [], Object.assign(new DatabaseError('gone', 0, 'error'), { code }));
    const outages: unknown[] = [
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated unexpectedly'),
      new QueryFailedError(
        'SELECT 1',
        [],
        new Error('Client has encountered a connection error and is not queryable'),
      ),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      terminated('57P01'),
      terminated('57P02'),
      terminated('57P03'),
      terminated('08006'),
      Object.assign(new Error('Query runner already released.'), { name: 'QueryRunnerAlreadyReleasedError' }),
    ];
    for (const outage of outages) {
      const result = respond(outage);
      expect(result).toMatchObject({
        status: 503,
        body: { error: 'DATABASE_UNAVAILABLE', requestId: 'req-1' },
        headers: { 'retry-after': '2' },
      });
    }
  });

  it('answers 400 for PostgreSQL data exceptions (class 22) that reach it', () => {
    for (const code of ['22021', '22003', '22P02', '22001', '22025']) {
      const driverError = Object.assign(new DatabaseError('bad value', 0, 'error'), { code });
      const result = respond(new QueryFailedError('SELECT 1', [], driverError));
      expect(result).toMatchObject({ status: 400, body: { error: 'INVALID_DATA', requestId: 'req-1' } });
      expect(result.body.message).not.toMatch(/SELECT|bad value/);
    }
  });

  it('hides unknown errors behind a generic 500', () => {
    const result = respond(new TypeError('secret internals'));
    expect(result.status).toBe(500);
    expect(result.body).toEqual({
      error: 'INTERNAL_ERROR',
      message: expect.not.stringContaining('secret'),
      requestId: 'req-1',
    });
  });
});
