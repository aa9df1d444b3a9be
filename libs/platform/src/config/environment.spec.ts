import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InvalidEnvironmentError, validateEnvironment } from './environment';

describe('validateEnvironment', () => {
  it('applies the embedded defaults to an empty environment', () => {
    const env = validateEnvironment({});
    expect(env.PORT).toBe(3000);
    expect(env.DATA_DIR).toBe('./data');
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.REDIS_URL).toBeUndefined();
    expect(env.LLM_BASE_URL).toBeUndefined();
  });

  it('converts numbers and booleans from strings', () => {
    const env = validateEnvironment({ PORT: '8080', WRITE_ADMIN_KEY_FILE: 'false', DATABASE_POOL_SIZE: '4' });
    expect(env.PORT).toBe(8080);
    expect(env.WRITE_ADMIN_KEY_FILE).toBe(false);
    expect(env.DATABASE_POOL_SIZE).toBe(4);
  });

  it('treats empty strings of optional URLs as unset', () => {
    const env = validateEnvironment({ DATABASE_URL: '', REDIS_URL: '  ' });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.REDIS_URL).toBeUndefined();
  });

  it('validates the secrets and egress keys', () => {
    const key = Buffer.alloc(32, 7);
    for (const SECRETS_KEY of [key.toString('hex'), key.toString('base64'), key.toString('base64url')]) {
      expect(validateEnvironment({ SECRETS_KEY }).SECRETS_KEY).toBe(SECRETS_KEY);
    }
    expect(() => validateEnvironment({ SECRETS_KEY: 'short' })).toThrow(/SECRETS_KEY/);
    expect(
      validateEnvironment({ SECRET_ENV_GRANTS: 'acme:OPS_SECRET_A,OPS_SECRET_B;*:OPS_SECRET_C' })
        .SECRET_ENV_GRANTS,
    ).toContain('acme');
    expect(() => validateEnvironment({ SECRET_ENV_GRANTS: 'OPS_SECRET_A' })).toThrow(/SECRET_ENV_GRANTS/);
    expect(
      validateEnvironment({ SOURCE_HOST_ALLOWLIST: 'db.internal:5432,[::1]' }).SOURCE_HOST_ALLOWLIST,
    ).toBe('db.internal:5432,[::1]');
    expect(() => validateEnvironment({ SOURCE_HOST_ALLOWLIST: 'postgres://x' })).toThrow(
      /SOURCE_HOST_ALLOWLIST/,
    );
  });

  it('lists every bad key with its value and reason', () => {
    let caught: unknown;
    try {
      validateEnvironment({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        REDIS_URL: 'http://r',
        LOG_LEVEL: 'loud',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidEnvironmentError);
    const problems = (caught as InvalidEnvironmentError).problems;
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/- PORT=eighty \(/);
    expect(problems.join('\n')).toMatch(/- DATABASE_URL=mysql:\/\/x \(must be a postgres/);
    expect(problems.join('\n')).toMatch(/- REDIS_URL=http:\/\/r \(must be a redis/);
    expect(problems.join('\n')).toMatch(/- LOG_LEVEL=loud \(/);
  });

  it('rejects a too-short ADMIN_API_KEY', () => {
    expect(() => validateEnvironment({ ADMIN_API_KEY: 'short' })).toThrow(/ADMIN_API_KEY=short/);
  });
});

describe('.env.example', () => {
  it('documents every configuration key', () => {
    const source = readFileSync(path.join(__dirname, 'environment.ts'), 'utf8');
    const body = source.slice(
      source.indexOf('export class EnvironmentVariables'),
      source.indexOf('export class InvalidEnvironmentError'),
    );
    const keys = [...body.matchAll(/^ {2}([A-Z][A-Z0-9_]+)[?!]?\s*[:=;]/gm)].map((m) => m[1]);
    expect(keys.length).toBeGreaterThan(50);
    const example = readFileSync(path.join(__dirname, '../../../../.env.example'), 'utf8');
    const missing = keys.filter((key) => !new RegExp(`^#? ?${key}=`, 'm').test(example));
    expect(missing).toEqual([]);
  });
});
