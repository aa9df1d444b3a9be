import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { ClusterLimits, HeldSlot, MemoryCacheStore, RedisCacheStore, SlotGrant } from '@app/platform';
import { freePort, sleep, startRedisServer, TEST_REDIS_URL } from '@test/support';

function slotOf(grant: SlotGrant): HeldSlot {
  if (!grant.granted) throw new Error(`refused: ${JSON.stringify(grant)}`);
  return grant.slot;
}

async function redisStore(url: string, keyPrefix: string, commandTimeoutMs = 500): Promise<RedisCacheStore> {
  const store = new RedisCacheStore({ url, keyPrefix, commandTimeoutMs });
  await store.connect();
  return store;
}

describe('ClusterLimits: two processes sharing one Redis', () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  let storeA: RedisCacheStore;
  let storeB: RedisCacheStore;
  let a: ClusterLimits;
  let b: ClusterLimits;
  let raw: Redis;

  beforeAll(async () => {
    storeA = await redisStore(TEST_REDIS_URL, prefix);
    storeB = await redisStore(TEST_REDIS_URL, prefix);
    a = new ClusterLimits(storeA);
    b = new ClusterLimits(storeB);
    raw = new Redis(TEST_REDIS_URL, { keyPrefix: prefix });
  });
  afterAll(async () => {
    await storeA.close();
    await storeB.close();
    raw.disconnect();
  });

  it('counts one semaphore across both: slots taken on A are missing on B until released (from either)', async () => {
    expect(a.shared).toBe(true);
    const first = slotOf(await a.acquire('runs', { limit: 2, leaseSeconds: 60 }));
    slotOf(await a.acquire('runs', { limit: 2, leaseSeconds: 60 }));
    const refused = await b.acquire('runs', { limit: 2, leaseSeconds: 60 });
    expect(refused).toMatchObject({ granted: false, held: 2 });

    await first.release();
    const onB = slotOf(await b.acquire('runs', { limit: 2, leaseSeconds: 60 }));
    expect(await b.acquire('runs', { limit: 2, leaseSeconds: 60 })).toMatchObject({ granted: false });

    // A slot named by its holder can be released by another process (an MCP DELETE on another replica).
    await a.release('runs', onB.holder);
    expect(await storeB.countLeases('runs')).toBe(1);
  });

  it('keeps a slot alive while its holder runs, and lets it expire when the holder is gone', async () => {
    // A 4 s lease renewed every ~1.3 s, checked after 5 s: past the lease, with room for a busy machine's
    // late timers (a 1 s lease renewed every 333 ms lapsed under load).
    const running = slotOf(await a.acquire('long', { limit: 1, leaseSeconds: 4, keepAlive: true }));
    await sleep(5000);
    expect(await b.acquire('long', { limit: 1, leaseSeconds: 1 })).toMatchObject({ granted: false });
    await running.release();
    // Taken without keep-alive and never released: a crashed holder.
    slotOf(await b.acquire('long', { limit: 1, leaseSeconds: 1 }));
    expect(await a.acquire('long', { limit: 1, leaseSeconds: 1 })).toMatchObject({ granted: false });
    await sleep(1300);
    const after = slotOf(await a.acquire('long', { limit: 1, leaseSeconds: 1 }));
    await after.release();
    // Nothing is left behind in Redis once the last lease is gone.
    expect(await raw.exists('long')).toBe(0);
  });

  it('renews a lease by holder from another process', async () => {
    // 5 s leases and 3 s pauses: the second check is past the first lease, and a late timer on a busy
    // machine still has 2 s of room.
    const held = slotOf(await a.acquire('session', { limit: 1, leaseSeconds: 5, holder: 'session-1' }));
    expect(held.holder).toBe('session-1');
    await sleep(3000);
    expect(await b.renew('session', 'session-1', 5)).toBe(true);
    await sleep(3000);
    expect(await b.acquire('session', { limit: 1, leaseSeconds: 1 })).toMatchObject({ granted: false });
    expect(await b.renew('session', 'someone-else', 5)).toBe(false);
    await held.release();
  });

  it('counts one rate window across both', async () => {
    expect((await a.hit('rate', 60)).count).toBe(1);
    expect((await b.hit('rate', 60)).count).toBe(2);
    const third = await a.hit('rate', 60);
    expect(third.count).toBe(3);
    expect(third.resetInMs).toBeGreaterThan(0);
    expect(await raw.pttl('rate')).toBeGreaterThan(0);
  });
});

describe('ClusterLimits while Redis is unreachable', () => {
  it('counts in this process instead of failing, and shares counts again once Redis is back', async () => {
    const port = await freePort();
    let redis = await startRedisServer(port);
    const store = await redisStore(`redis://127.0.0.1:${port}`, 'test:', 300);
    const limits = new ClusterLimits(store);
    try {
      expect(limits.shared).toBe(true);
      const sharedSlot = slotOf(await limits.acquire('k', { limit: 1, leaseSeconds: 60 }));
      redis.kill('SIGKILL');
      await sleep(300);

      expect(limits.shared).toBe(false);
      const local = slotOf(await limits.acquire('k', { limit: 1, leaseSeconds: 60 }));
      expect(await limits.acquire('k', { limit: 1, leaseSeconds: 60 })).toMatchObject({ granted: false });
      expect((await limits.hit('w', 60)).count).toBe(1);
      expect((await limits.hit('w', 60)).count).toBe(2);
      expect(await limits.renew('k', local.holder, 60)).toBe(true);
      await local.release();
      await sharedSlot.release();
      slotOf(await limits.acquire('k', { limit: 1, leaseSeconds: 60 }));

      redis = await startRedisServer(port);
      for (let i = 0; i < 60 && !store.health().available; i++) await sleep(100);
      expect(limits.shared).toBe(true);
      // The fresh Redis holds nothing: the local slot taken meanwhile does not count there.
      slotOf(await limits.acquire('k', { limit: 1, leaseSeconds: 60 }));
      expect((await limits.hit('w', 60)).count).toBe(1);
    } finally {
      await store.close();
      redis.kill('SIGKILL');
    }
  });
});

describe('ClusterLimits without Redis', () => {
  it('counts in the in-process store', async () => {
    const limits = new ClusterLimits(new MemoryCacheStore(100));
    expect(limits.shared).toBe(false);
    const slot = slotOf(await limits.acquire('k', { limit: 1, leaseSeconds: 60 }));
    expect(await limits.acquire('k', { limit: 1, leaseSeconds: 60 })).toMatchObject({ granted: false });
    await slot.release();
    slotOf(await limits.acquire('k', { limit: 1, leaseSeconds: 60 }));
    expect((await limits.hit('w', 60)).count).toBe(1);
    expect((await limits.hit('w', 60)).count).toBe(2);
  });
});
