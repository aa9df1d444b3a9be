import { BatchSizer, REQUEST_RECENT_MS } from './batch-sizer';
import { beginRequest } from './database-priority';

describe('BatchSizer', () => {
  afterEach(() => jest.useRealTimers());

  it('aims at the target, within [min, max]', () => {
    const sizer = new BatchSizer(100, { targetMs: 20, min: 10, max: 400 });
    sizer.record(100, 10);
    expect(sizer.next).toBe(200);
    sizer.record(200, 1000);
    expect(sizer.next).toBe(50);
    sizer.record(50, 1000);
    expect(sizer.next).toBe(13);
    sizer.record(13, 1000);
    expect(sizer.next).toBe(10);
  });

  it('goes below min, down to requestMin, while requests come, and back once they stop', () => {
    jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate'] });
    const sizer = new BatchSizer(100, { targetMs: 20, min: 40, max: 400, requestMin: 5 });
    const end = beginRequest();
    sizer.record(100, 1000);
    sizer.record(25, 1000);
    expect(sizer.next).toBe(6);
    end();
    // The request has just ended: more may follow.
    expect(sizer.next).toBe(6);
    jest.advanceTimersByTime(REQUEST_RECENT_MS + 1);
    expect(sizer.next).toBe(40);
  });

  it('always uses max when there is no target', () => {
    const sizer = new BatchSizer(3, { targetMs: Number.POSITIVE_INFINITY, min: 1, max: 1000, requestMin: 1 });
    sizer.record(1000, 1e6);
    expect(sizer.next).toBe(1000);
  });
});
