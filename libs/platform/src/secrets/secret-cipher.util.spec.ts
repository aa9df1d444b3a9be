import { randomBytes } from 'node:crypto';
import { openSecret, parseSecretsKey, sealSecret, secretsKeyId } from './secret-cipher.util';

describe('secret cipher', () => {
  const key = randomBytes(32);

  it('round-trips and binds the ciphertext to its tenant and name', () => {
    const sealed = sealSecret(key, 't1:BLOG', 'hunter2-value');
    expect(sealed.ciphertext.toString('utf8')).not.toContain('hunter2');
    expect(sealed.keyId).toBe(secretsKeyId(key));
    expect(openSecret(key, 't1:BLOG', sealed)).toBe('hunter2-value');
    expect(() => openSecret(key, 't2:BLOG', sealed)).toThrow();
    expect(() => openSecret(randomBytes(32), 't1:BLOG', sealed)).toThrow();
  });

  it('reads keys as hex or base64 and refuses anything else', () => {
    expect(parseSecretsKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretsKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretsKey(key.toString('base64url'))).toEqual(key);
    expect(parseSecretsKey('too-short')).toBeNull();
    expect(parseSecretsKey(randomBytes(16).toString('hex'))).toBeNull();
  });
});
