import { randomBytes } from 'node:crypto';
import { CacheStore, MemoryCacheStore, RedisCacheStore, RedisCircuitBreaker } from '@app/platform';
import { freePort, sleep, startRedisServer as startRedis, TEST_REDIS_URL } from '@test/support';

/** The contract every cache adapter honours; run against each one. */
function cacheContract(
  name: string,
  create: () => Promise<CacheStore>,
  dispose: (cache: CacheStore) => Promise<void>,
) {
  describe(`CacheStore contract: ${name}`, () => {
    let cache: CacheStore;
    beforeAll(async () => {
      cache = await create();
    });
    afterAll(() => dispose(cache));

    it('misses an unknown key', async () => {
      expect(await cache.get('missing')).toBeUndefined();
    });

    it('returns a copy of what was stored', async () => {
      const value = { a: 1, list: ['x', { y: true }], text: '한국어' };
      await cache.set('obj', value, 60);
      const read = await cache.get<typeof value>('obj');
      expect(read).toEqual(value);
      expect(read).not.toBe(value);
    });

    it('expires entries after their TTL', async () => {
      // A TTL long enough that the first read lands inside it on a loaded machine (0.2 s did not always).
      await cache.set('short', 'v', 1.5);
      expect(await cache.get('short')).toBe('v');
      await sleep(1800);
      expect(await cache.get('short')).toBeUndefined();
    });

    it('renews an existing entry and never creates one', async () => {
      await cache.set('renewed', 'v', 1.5);
      expect(await cache.expire('renewed', 60)).toBe(true);
      await sleep(1800);
      expect(await cache.get('renewed')).toBe('v');
      await cache.delete('renewed');
      expect(await cache.expire('renewed', 60)).toBe(false);
      expect(await cache.get('renewed')).toBeUndefined();
    });

    it('deletes keys', async () => {
      await cache.set('d1', 1, 60);
      await cache.set('d2', 2, 60);
      await cache.delete('d1', 'd2');
      expect(await cache.get('d1')).toBeUndefined();
      expect(await cache.get('d2')).toBeUndefined();
    });

    it('increments counters atomically', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => cache.increment('counter')));
      expect(new Set(results).size).toBe(20);
      expect(Math.max(...(results as number[]))).toBe(20);
    });

    it('keeps a counter without a TTL until it is deleted', async () => {
      expect(await cache.increment('forever')).toBe(1);
      await sleep(300);
      expect(await cache.increment('forever')).toBe(2);
      await cache.delete('forever');
      expect(await cache.increment('forever')).toBe(1);
    });

    it('counts in a fixed window: the first increment starts it, later ones do not extend it', async () => {
      // Windows of seconds and pauses well inside or past them, so late timers on a busy machine do not matter.
      const first = await cache.incrementWindow('window', 4);
      expect(first).toEqual({ count: 1, resetInMs: expect.any(Number) });
      expect(first!.resetInMs).toBeGreaterThan(0);
      expect(first!.resetInMs).toBeLessThanOrEqual(4000);
      await sleep(1000);
      const second = await cache.incrementWindow('window', 4);
      expect(second!.count).toBe(2);
      // A sliding window would now run until ~5 s; the fixed one ends at 4 s.
      expect(second!.resetInMs).toBeLessThan(first!.resetInMs);
      await sleep(3500);
      expect((await cache.incrementWindow('window', 4))!.count).toBe(1);
      // increment with a TTL is the same window.
      expect(await cache.increment('window-2', 2)).toBe(1);
      expect(await cache.increment('window-2', 2)).toBe(2);
      await sleep(2500);
      expect(await cache.increment('window-2', 2)).toBe(1);
    });

    it('counts a window atomically under racing increments', async () => {
      const results = await Promise.all(Array.from({ length: 25 }, () => cache.incrementWindow('burst', 60)));
      expect(new Set(results.map((r) => r!.count)).size).toBe(25);
      expect(Math.max(...results.map((r) => r!.count))).toBe(25);
    });

    it('grants exactly `limit` lease slots to racing holders, and frees one on release', async () => {
      const grants = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          cache.acquireLease('sem', { holder: `h${i}`, limit: 3, leaseSeconds: 60 }),
        ),
      );
      const granted = grants.flatMap((g, i) => (g?.granted ? [`h${i}`] : []));
      expect(granted).toHaveLength(3);
      const refused = grants.find((g) => g && !g.granted);
      expect(refused).toMatchObject({ granted: false, held: 3 });
      expect(refused!.granted === false && refused!.retryAfterMs).toBeGreaterThan(0);
      expect(refused!.granted === false && refused!.retryAfterMs).toBeLessThanOrEqual(60_000);
      expect(await cache.countLeases('sem')).toBe(3);

      // A holder already inside gets its slot again (a renewal), even with the semaphore full.
      expect(await cache.acquireLease('sem', { holder: granted[0], limit: 3, leaseSeconds: 60 })).toEqual({
        granted: true,
        held: 3,
      });
      expect(await cache.acquireLease('sem', { holder: 'late', limit: 3, leaseSeconds: 60 })).toMatchObject({
        granted: false,
      });
      await cache.releaseLease('sem', granted[1]);
      await cache.releaseLease('sem', 'never-held');
      expect(await cache.countLeases('sem')).toBe(2);
      expect(await cache.acquireLease('sem', { holder: 'late', limit: 3, leaseSeconds: 60 })).toEqual({
        granted: true,
        held: 3,
      });
      // Another key is another semaphore.
      expect(await cache.acquireLease('sem-other', { holder: 'x', limit: 1, leaseSeconds: 60 })).toEqual({
        granted: true,
        held: 1,
      });
      // A lower limit (a changed setting) applies at once to new holders.
      expect(await cache.acquireLease('sem', { holder: 'new', limit: 2, leaseSeconds: 60 })).toMatchObject({
        granted: false,
        held: 3,
      });
    });

    it('frees the slot of a holder that never releases once its lease expires', async () => {
      // One live holder keeps the semaphore itself alive while the other holder's lease runs out.
      const limit = 2;
      await cache.acquireLease('crashed', { holder: 'alive', limit, leaseSeconds: 60 });
      expect(await cache.acquireLease('crashed', { holder: 'gone', limit, leaseSeconds: 1 })).toMatchObject({
        granted: true,
      });
      const refused = await cache.acquireLease('crashed', { holder: 'next', limit, leaseSeconds: 1 });
      expect(refused).toMatchObject({ granted: false, held: 2 });
      expect(refused!.granted === false && refused!.retryAfterMs).toBeLessThanOrEqual(1000);
      await sleep(1300);
      expect(await cache.countLeases('crashed')).toBe(1);
      expect(await cache.renewLease('crashed', 'gone', 1)).toBe(false);
      expect(await cache.acquireLease('crashed', { holder: 'next', limit, leaseSeconds: 60 })).toEqual({
        granted: true,
        held: 2,
      });
    });

    it('keeps a renewed lease past its first expiry, and renews only a lease still held', async () => {
      await cache.acquireLease('renewed', { holder: 'long-run', limit: 1, leaseSeconds: 3 });
      for (let i = 0; i < 4; i++) {
        await sleep(1000);
        expect(await cache.renewLease('renewed', 'long-run', 3)).toBe(true);
      }
      // 4 s after the first acquire, a 3 s lease renewed every second still holds the only slot.
      expect(
        await cache.acquireLease('renewed', { holder: 'other', limit: 1, leaseSeconds: 1 }),
      ).toMatchObject({
        granted: false,
      });
      await cache.releaseLease('renewed', 'long-run');
      expect(await cache.renewLease('renewed', 'long-run', 1)).toBe(false);
      expect(await cache.renewLease('renewed', 'stranger', 1)).toBe(false);
      expect(await cache.countLeases('renewed')).toBe(0);
      expect(await cache.countLeases('no-such-semaphore')).toBe(0);
    });

    it('stores a value only where nothing is, and returns the winner to every racer', async () => {
      const results = await Promise.all(['a', 'b', 'c', 'd'].map((v) => cache.setIfAbsent('nx', v, 60)));
      expect(new Set(results).size).toBe(1);
      expect(await cache.get('nx')).toBe(results[0]);
      expect(await cache.setIfAbsent('nx', 'later', 60)).toBe(results[0]);
      await cache.delete('nx');
      expect(await cache.setIfAbsent('nx', { fresh: true }, 0.2)).toEqual({ fresh: true });
      await sleep(400);
      expect(await cache.setIfAbsent('nx', 'after expiry', 60)).toBe('after expiry');
    });

    it('reads an entry through the version stored at a pointer key', async () => {
      const entryKey = { prefix: 'entry:', suffix: ':q1' };
      expect(await cache.getVersioned('pointer', entryKey)).toEqual({});
      await cache.set('entry:v1:q1', { answer: 1 }, 60);
      expect(await cache.getVersioned('pointer', entryKey)).toEqual({});
      await cache.set('pointer', 'v1', 60);
      expect(await cache.getVersioned('pointer', entryKey)).toEqual({ version: 'v1', value: { answer: 1 } });
      await cache.set('pointer', 'v2', 60);
      expect(await cache.getVersioned('pointer', entryKey)).toEqual({ version: 'v2' });
      await cache.set('entry:v2:q1', '한국어', 60);
      expect(await cache.getVersioned('pointer', entryKey)).toEqual({ version: 'v2', value: '한국어' });
      await cache.set('pointer', 7, 60);
      expect(await cache.getVersioned('pointer', entryKey)).toEqual({});
    });

    it('computes identical concurrent misses once', async () => {
      let calls = 0;
      const compute = async () => {
        calls++;
        await sleep(50);
        return { n: 42 };
      };
      const results = await Promise.all(
        Array.from({ length: 10 }, () => cache.getOrCompute('single', 60, compute)),
      );
      expect(calls).toBe(1);
      expect(results.every((r) => r.value.n === 42)).toBe(true);
      const again = await cache.getOrCompute('single', 60, compute);
      expect(again).toEqual({ value: { n: 42 }, hit: true });
      expect(calls).toBe(1);
    });

    it('does not cache a failed computation', async () => {
      await expect(cache.getOrCompute('fails', 60, () => Promise.reject(new Error('boom')))).rejects.toThrow(
        'boom',
      );
      expect((await cache.getOrCompute('fails', 60, () => Promise.resolve('ok'))).value).toBe('ok');
    });

    it('reports itself healthy', () => {
      expect(cache.health().available).toBe(true);
    });
  });
}

cacheContract(
  'memory',
  () => Promise.resolve(new MemoryCacheStore(1000)),
  () => Promise.resolve(),
);

cacheContract(
  'redis',
  async () => {
    const cache = new RedisCacheStore({
      url: TEST_REDIS_URL,
      keyPrefix: `test:${randomBytes(4).toString('hex')}:`,
      commandTimeoutMs: 500,
    });
    await cache.connect();
    return cache;
  },
  (cache) => (cache as RedisCacheStore).close(),
);

describe('RedisCacheStore when Redis goes away', () => {
  it('degrades to misses and dropped writes, reports it, and recovers', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    const cache = new RedisCacheStore({
      url: `redis://127.0.0.1:${port}`,
      keyPrefix: 'test:',
      commandTimeoutMs: 300,
    });
    await cache.connect();
    try {
      await cache.set('k', 'v', 60);
      expect(await cache.get('k')).toBe('v');

      redis.kill('SIGKILL');
      await sleep(300);
      const started = Date.now();
      expect(await cache.get('k')).toBeUndefined();
      await expect(cache.set('k2', 'v', 60)).resolves.toBeUndefined();
      expect(await cache.increment('n')).toBeUndefined();
      expect(await cache.increment('n', 60)).toBeUndefined();
      expect(await cache.incrementWindow('w', 60)).toBeUndefined();
      expect(await cache.acquireLease('s', { holder: 'h', limit: 1, leaseSeconds: 60 })).toBeUndefined();
      expect(await cache.renewLease('s', 'h', 60)).toBeUndefined();
      await expect(cache.releaseLease('s', 'h')).resolves.toBeUndefined();
      expect(await cache.countLeases('s')).toBeUndefined();
      expect(await cache.setIfAbsent('nx', 'v', 60)).toBeUndefined();
      expect(await cache.expire('k', 60)).toBeUndefined();
      expect(await cache.getVersioned('k', { prefix: 'e:', suffix: '' })).toEqual({});
      expect((await cache.getOrCompute('c', 60, () => Promise.resolve('computed'))).value).toBe('computed');
      expect(Date.now() - started).toBeLessThan(5000);
      expect(cache.health()).toMatchObject({ backend: 'redis', available: false });

      redis = await startRedis(port);
      for (let i = 0; i < 60 && !cache.health().available; i++) await sleep(100);
      expect(cache.health().available).toBe(true);
      await cache.set('k3', 'back', 60);
      expect(await cache.get('k3')).toBe('back');
      // A new server has no scripts loaded: EVALSHA falls back to EVAL.
      await cache.set('e:back:q', 'entry', 60);
      expect(await cache.setIfAbsent('pointer', 'back', 60)).toBe('back');
      expect(await cache.getVersioned('pointer', { prefix: 'e:', suffix: ':q' })).toEqual({
        version: 'back',
        value: 'entry',
      });
      expect(await cache.incrementWindow('w', 60)).toMatchObject({ count: 1 });
      expect(await cache.acquireLease('s', { holder: 'h', limit: 1, leaseSeconds: 60 })).toEqual({
        granted: true,
        held: 1,
      });
      expect(await cache.renewLease('s', 'h', 60)).toBe(true);
      expect(await cache.countLeases('s')).toBe(1);
    } finally {
      await cache.close();
      redis.kill('SIGKILL');
    }
  });

  it('reports itself available again once a command succeeds after one timed out', async () => {
    // A command timeout leaves the connection up: no reconnect, so no 'ready' event to say it is back.
    const port = await freePort();
    const redis = await startRedis(port);
    const cache = new RedisCacheStore({
      url: `redis://127.0.0.1:${port}`,
      keyPrefix: 'test:',
      commandTimeoutMs: 200,
    });
    await cache.connect();
    try {
      await cache.set('k', 'v', 60);
      redis.kill('SIGSTOP');
      try {
        expect(await cache.get('k')).toBeUndefined();
        expect(cache.health().available).toBe(false);
      } finally {
        redis.kill('SIGCONT');
      }
      let value: unknown;
      for (let i = 0; i < 50 && value === undefined; i++) {
        value = await cache.get('k');
        if (value === undefined) await sleep(100);
      }
      expect(value).toBe('v');
      expect(cache.health()).toEqual({ backend: 'redis', available: true });
    } finally {
      await cache.close();
      redis.kill('SIGKILL');
    }
  });

  it('pays one command timeout for a frozen Redis, not one per command, and probes it back', async () => {
    // SIGSTOP keeps the connection open, so every command sent meanwhile waits for its timeout; the
    // server runs them once it resumes, so the counter says how many commands were sent while frozen.
    const port = await freePort();
    const redis = await startRedis(port);
    const cache = new RedisCacheStore({
      url: `redis://127.0.0.1:${port}`,
      keyPrefix: 'test:',
      commandTimeoutMs: 200,
      circuit: new RedisCircuitBreaker(300),
    });
    await cache.connect();
    try {
      expect(await cache.increment('sent')).toBe(1);
      await cache.set('k', 'v', 60);
      redis.kill('SIGSTOP');
      try {
        // A request's sequence of cache calls, several times over, spanning several cool-downs.
        for (let round = 0; round < 4; round++) {
          expect(await cache.increment('sent')).toBeUndefined();
          expect(await cache.get('k')).toBeUndefined();
          expect(await cache.getVersioned('k', { prefix: 'e:', suffix: '' })).toEqual({});
          await cache.set('k2', 'v', 60);
          expect(await cache.incrementWindow('w', 60)).toBeUndefined();
          await sleep(150);
        }
        expect(cache.health()).toMatchObject({ available: false });
        expect(cache.circuit.failedCommands).toBe(1);
        expect(cache.circuit.skippedCommands).toBe(19);
      } finally {
        redis.kill('SIGCONT');
      }
      // The background probe closes the circuit; commands reach Redis again.
      let sent: number | undefined;
      for (let i = 0; i < 100 && sent === undefined; i++) {
        sent = await cache.increment('sent');
        if (sent === undefined) await sleep(100);
      }
      // 1 before the freeze, 1 sent when it froze (run on resume), this one.
      expect(sent).toBe(3);
      expect(await cache.get('k')).toBe('v');
      expect(cache.health()).toMatchObject({ available: true });
    } finally {
      await cache.close();
      redis.kill('SIGKILL');
    }
  });

  it('starts without a reachable Redis', async () => {
    const cache = new RedisCacheStore({
      url: `redis://127.0.0.1:${await freePort()}`,
      keyPrefix: 'test:',
      commandTimeoutMs: 200,
    });
    await cache.connect();
    try {
      expect(await cache.get('x')).toBeUndefined();
      expect(cache.health().available).toBe(false);
    } finally {
      await cache.close();
    }
  });
});
