import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export const SECRETS_KEY_BYTES = 32;

export interface SealedSecret {
  ciphertext: Buffer;
  iv: Buffer;
  authTag: Buffer;
  keyId: string;
}

/** A short, stable name of a key (not the key): tells which key sealed a row. */
export function secretsKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** A 32-byte key written as 64 hex digits or as base64 (standard or url-safe); null when it is neither. */
export function parseSecretsKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return key.length === SECRETS_KEY_BYTES ? key : null;
  }
  return null;
}

/**
 * AES-256-GCM with a random 96-bit IV per write. The tenant and name are the associated data, so a
 * row copied to another tenant or renamed no longer decrypts.
 */
export function sealSecret(key: Buffer, aad: string, plaintext: string): SealedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext, iv, authTag: cipher.getAuthTag(), keyId: secretsKeyId(key) };
}

export function openSecret(key: Buffer, aad: string, sealed: Omit<SealedSecret, 'keyId'>): string {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.authTag);
  return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
}
