import { displayPrefix, generateApiKey, hashApiKey } from './api-key.util';
import { roleSatisfies, roleSatisfiesAny, TOOL_RUNNER_ROLES } from './principal';

describe('roles', () => {
  it('orders reader < operator < admin', () => {
    expect(roleSatisfies('admin', 'operator')).toBe(true);
    expect(roleSatisfies('operator', 'operator')).toBe(true);
    expect(roleSatisfies('reader', 'operator')).toBe(false);
    expect(roleSatisfies('operator', 'admin')).toBe(false);
  });

  it('puts service beside the ladder: reads and runs tools, but neither operates nor administers', () => {
    expect(roleSatisfies('service', 'service')).toBe(true);
    expect(roleSatisfies('service', 'reader')).toBe(true);
    expect(roleSatisfies('service', 'operator')).toBe(false);
    expect(roleSatisfies('service', 'admin')).toBe(false);
    expect(roleSatisfies('admin', 'service')).toBe(true);
    expect(roleSatisfies('operator', 'service')).toBe(false);
    expect(roleSatisfies('reader', 'service')).toBe(false);
    expect(roleSatisfiesAny('service', TOOL_RUNNER_ROLES)).toBe(true);
    expect(roleSatisfiesAny('operator', TOOL_RUNNER_ROLES)).toBe(true);
    expect(roleSatisfiesAny('reader', TOOL_RUNNER_ROLES)).toBe(false);
  });
});

describe('api keys', () => {
  it('are long, distinct and hashed deterministically', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a).toMatch(/^ops_[0-9A-Za-z]{43}$/);
    expect(a).not.toBe(b);
    expect(hashApiKey(a)).toBe(hashApiKey(a));
    expect(hashApiKey(a)).not.toBe(hashApiKey(b));
    expect(displayPrefix(a)).toHaveLength(12);
  });
});
