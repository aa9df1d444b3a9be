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
});
