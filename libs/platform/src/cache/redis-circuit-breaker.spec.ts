import { ReplyError } from 'ioredis';
import { RedisCircuitBreaker } from './redis-circuit-breaker';

describe('RedisCircuitBreaker', () => {
  let now = 0;
  const clock = () => now;
  const timeout = () => Promise.reject(new Error('Command timed out'));
  const answer =
    <T>(value: T) =>
    () =>
      Promise.resolve(value);
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  beforeEach(() => (now = 0));

  it('sends while closed, skips after a failure until the cool-down, then probes in the background', async () => {
    const circuit = new RedisCircuitBreaker(1000, clock);
    const changes: string[] = [];
    circuit.onChange((state) => changes.push(state));
    expect(await circuit.run(answer('v'), answer('PONG'))).toEqual({ sent: true, reply: 'v' });

    expect(await circuit.run(timeout, answer('PONG'))).toEqual({ sent: false });
    expect(circuit.state).toBe('open');
    let commands = 0;
    const counted = () => Promise.resolve(++commands);
    now = 999;
    expect(await circuit.run(counted, answer('PONG'))).toEqual({ sent: false });
    expect(commands).toBe(0);

    // Cool-down over: this command starts the probe and is skipped; the probe fails, so still open.
    now = 1000;
    let probes = 0;
    const failingProbe = () => (probes++, timeout());
    expect(await circuit.run(counted, failingProbe)).toEqual({ sent: false });
    await flush();
    expect([probes, circuit.state]).toEqual([1, 'open']);
    now = 1999;
    await circuit.run(counted, failingProbe);
    expect(probes).toBe(1);

    now = 2000;
    expect(await circuit.run(counted, answer('PONG'))).toEqual({ sent: false });
    await flush();
    expect(circuit.state).toBe('closed');
    expect(await circuit.run(counted, answer('PONG'))).toEqual({ sent: true, reply: 1 });
    expect([circuit.failedCommands, circuit.skippedCommands]).toEqual([1, 4]);
    expect(changes).toEqual(['open', 'closed']);
  });

  it('starts one probe at a time', async () => {
    const circuit = new RedisCircuitBreaker(10, clock);
    await circuit.run(timeout, answer('PONG'));
    now = 10;
    let probes = 0;
    let answerProbe!: () => void;
    const slowProbe = () => (probes++, new Promise<void>((resolve) => (answerProbe = resolve)));
    await Promise.all([1, 2, 3].map(() => circuit.run(answer('v'), slowProbe)));
    expect(probes).toBe(1);
    answerProbe();
    await flush();
    expect(circuit.state).toBe('closed');
  });

  it('stays closed on an error reply (Redis answered) and passes it on', async () => {
    const circuit = new RedisCircuitBreaker(1000, clock);
    const reply = new ReplyError('WRONGTYPE') as Error;
    const wrongType = () => Promise.reject(reply);
    await expect(circuit.run(wrongType, answer('PONG'))).rejects.toThrow('WRONGTYPE');
    expect(circuit.state).toBe('closed');
  });

  it('closes on a reconnect', async () => {
    const circuit = new RedisCircuitBreaker(60_000, clock);
    await circuit.run(timeout, answer('PONG'));
    circuit.close();
    expect(await circuit.run(answer('v'), answer('PONG'))).toEqual({ sent: true, reply: 'v' });
  });
});
