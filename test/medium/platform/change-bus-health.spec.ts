import { ChangeBus, ChangePropagation, HealthRegistry } from '@app/platform';
import { freePort, sleep, startRedisServer, startTestContext, TestContext, testBackend } from '@test/support';

async function changeBusStatus(ctx: TestContext): Promise<unknown> {
  return (await ctx.get(HealthRegistry).report()).checks.change_bus?.status;
}

/** Polls until `check` holds; the limit is only how long to wait, not what is asserted. */
async function waitFor(check: () => Promise<boolean>, limitMs = 15_000): Promise<void> {
  for (const deadline = Date.now() + limitMs; Date.now() < deadline; await sleep(100)) {
    if (await check()) return;
  }
}

describe(`the Redis change bus reports whether it delivers (${testBackend()})`, () => {
  it('is degraded while a frozen Redis delivers nothing, and ok (with a resync) once it delivers again', async () => {
    // SIGSTOP keeps every connection open: only a message that does not arrive tells the bus is stuck.
    const port = await freePort();
    const redis = await startRedisServer(port);
    let ctx: TestContext | undefined;
    try {
      ctx = await startTestContext([], {
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_COMMAND_TIMEOUT_MS: '200',
        CHANGE_BUS_HEARTBEAT_MS: '200',
      });
      const running = ctx;
      expect(running.get(ChangeBus).backend).toBe('redis');
      await waitFor(async () => (await changeBusStatus(running)) === 'ok');
      expect(await changeBusStatus(running)).toBe('ok');
      const polls = jest.spyOn(running.get(ChangePropagation), 'poll');

      redis.kill('SIGSTOP');
      try {
        await waitFor(async () => (await changeBusStatus(running)) === 'degraded');
        expect(await changeBusStatus(running)).toBe('degraded');
        expect(running.get(ChangePropagation).busConnected()).toBe(false);
      } finally {
        redis.kill('SIGCONT');
      }

      // A wait bound only (a loaded machine resumes a SIGCONTed server and the next heartbeat late).
      await waitFor(
        async () => (await changeBusStatus(running)) === 'ok' && polls.mock.calls.length > 0,
        45_000,
      );
      expect(await changeBusStatus(running)).toBe('ok');
      // Messages may have been lost while it was stuck: delivering again counts as a reconnect.
      expect(polls).toHaveBeenCalled();
    } finally {
      await ctx?.close();
      redis.kill('SIGKILL');
    }
  }, 120_000);
});
