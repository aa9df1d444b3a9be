import { displayPrefix, generateApiKey, hashApiKey } from './api-key.util';
import { roleSatisfies } from './principal';

describe('roles', () => {
  it('orders reader < operator < admin', () => {
    expect(roleSatisfies('admin', 'operator')).toBe(true);
    expect(roleSatisfies('operator', 'operator')).toBe(true);
    expect(roleSatisfies('reader', 'operator')).toBe(false);
    expect(roleSatisfies('operator', 'admin')).toBe(false);
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
