import { RequestContext } from './request-context';

describe('RequestContext.fromHeaders', () => {
  it('keeps a well-formed X-Request-Id and the trace id of a traceparent', () => {
    const state = RequestContext.fromHeaders(
      'req-123',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    );
    expect(state.requestId).toBe('req-123');
    expect(state.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(state.spanId).toBe('00f067aa0ba902b7');
  });

  it('generates ids for missing or malformed headers', () => {
    const state = RequestContext.fromHeaders(
      'bad id with spaces',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    );
    expect(state.requestId).toMatch(/^[\da-f-]{36}$/);
    expect(state.traceId).toMatch(/^[\da-f]{32}$/);
    expect(state.traceId).not.toBe('00000000000000000000000000000000');
  });

  it('exposes the state inside run() only', () => {
    expect(RequestContext.current()).toBeUndefined();
    RequestContext.run({ requestId: 'r1', traceId: 't1' }, () =>
      expect(RequestContext.requestId()).toBe('r1'),
    );
  });
});
