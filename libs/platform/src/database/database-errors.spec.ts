import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isDatabaseUnavailable, retryReadOnce } from './database-errors';

describe('retryReadOnce', () => {
  const outage = () =>
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });

  it('runs a read once more after the database dropped the connection', async () => {
    let calls = 0;
    const read = () => (++calls === 1 ? Promise.reject(outage()) : Promise.resolve('rows'));
    await expect(retryReadOnce(read, 1)).resolves.toBe('rows');
    expect(calls).toBe(2);
  });

  it('gives up after the second failure and never retries other errors', async () => {
    let calls = 0;
    await expect(retryReadOnce(() => (calls++, Promise.reject(outage())), 1)).rejects.toThrow(
      /administrator/,
    );
    expect(calls).toBe(2);
    calls = 0;
    await expect(
      retryReadOnce(() => (calls++, Promise.reject(new Error('syntax error'))), 1),
    ).rejects.toThrow();
    expect(calls).toBe(1);
  });

  it('does not take statement errors for outages', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('bad'), { code: '22P02' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '08006' }))).toBe(true);
  });

  // Both are what TypeORM throws when the next statement of an operation finds its connection gone
  // (a terminated backend): the first from the query runner, the second from a transaction's manager
  // (seen as 500s when backends were terminated during concurrent searches, issue 13 finding 16).
  it('takes the released-query-runner errors of a dead connection for outages', () => {
    expect(isDatabaseUnavailable(new QueryRunnerAlreadyReleasedError())).toBe(true);
    expect(isDatabaseUnavailable(new QueryRunnerProviderAlreadyReleasedError())).toBe(true);
  });

  it('retries a read whose transaction found its connection released', async () => {
    let calls = 0;
    const read = () =>
      ++calls === 1 ? Promise.reject(new QueryRunnerProviderAlreadyReleasedError()) : Promise.resolve('rows');
    await expect(retryReadOnce(read, 1)).resolves.toBe('rows');
    expect(calls).toBe(2);
  });
});
