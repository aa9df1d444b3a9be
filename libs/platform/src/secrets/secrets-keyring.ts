import { Injectable, Logger } from '@nestjs/common';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PlatformConfig } from '../platform.config';
import { ErrorKind, PlatformException, PlatformExceptionCode } from '../errors/app.exception';
import { parseSecretsKey, SECRETS_KEY_BYTES } from './secret-cipher.util';

export const SECRETS_KEY_FILE = 'secrets-key';

/**
 * The server key that seals tenant secrets: `SECRETS_KEY`, or on the embedded backend a key generated
 * once into `DATA_DIR/secrets-key` (0600, like the admin key file). With `DATABASE_URL` and no
 * `SECRETS_KEY` there is no key: several replicas would each invent a different one.
 */
@Injectable()
export class SecretsKeyring {
  private readonly logger = new Logger(SecretsKeyring.name);
  private key: Buffer | null | undefined;

  constructor(private readonly config: PlatformConfig) {}

  /** The key, or a 503 saying how to configure one. */
  current(): Buffer {
    if (this.key === undefined) this.key = this.load();
    if (!this.key) {
      throw new PlatformException(
        PlatformExceptionCode.SECRETS_KEY_MISSING,
        ErrorKind.UNAVAILABLE,
        'Tenant secrets are not available: set SECRETS_KEY (32 bytes, hex or base64) on the server.',
      );
    }
    return this.key;
  }

  private load(): Buffer | null {
    const configured = this.config.SECRETS_KEY;
    if (configured) return parseSecretsKey(configured);
    if (this.config.DATABASE_URL) return null;
    const file = path.join(this.config.dataDir, SECRETS_KEY_FILE);
    try {
      const key = parseSecretsKey(readFileSync(file, 'utf8'));
      if (!key) throw new Error(`${file} does not hold a 32-byte key`);
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    mkdirSync(this.config.dataDir, { recursive: true });
    const key = randomBytes(SECRETS_KEY_BYTES);
    try {
      // 'wx': two processes racing on first use keep the first key.
      writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
      this.logger.log({ msg: 'secrets key generated', file });
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return parseSecretsKey(readFileSync(file, 'utf8'));
    }
  }
}
