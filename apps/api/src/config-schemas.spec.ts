import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@app/platform';
import { configKeys, InvalidEnvironmentError, validateConfigs } from '@app/platform/config';
import { CONFIG_SCHEMAS, CONFIG_SECTIONS, validateEnvironment } from './config-schemas';

/** Every lib's keys read from `raw`, as one object. */
function read(raw: Record<string, unknown>): Record<string, unknown> {
  return Object.assign({}, ...validateConfigs(CONFIG_SCHEMAS, raw).values()) as Record<string, unknown>;
}

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) return error.problems;
    throw error;
  }
  throw new Error('no InvalidEnvironmentError');
}

const ownerOf = (key: string) => CONFIG_SECTIONS.find((s) => configKeys(s.schema).includes(key))?.lib;

/** One bad value in each lib's keys (and several in the platform's). */
const BAD_KEYS: Record<string, string> = {
  PORT: 'eighty',
  DATABASE_URL: 'mysql://x',
  REDIS_URL: 'http://r',
  LOG_LEVEL: 'loud',
  DOCUMENTS_SEARCH_FUSION: 'sum',
  ASSET_CACHE_TTL_SECONDS: '0',
  MCP_SERVERS: 'not json',
  DEMO_DATA: 'maybe',
  CODE_WORKER_CONCURRENCY: '99',
  LLM_TEMPERATURE: '9',
  CHAT_TOP_K: '0',
};

describe('the environment, every lib validated together', () => {
  it('applies the embedded defaults to an empty environment', () => {
    const env = read({});
    expect(env.PORT).toBe(3000);
    expect(env.DATA_DIR).toBe('./data');
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.REDIS_URL).toBeUndefined();
    expect(env.LLM_BASE_URL).toBeUndefined();
    expect(env.DOCUMENTS_SEARCH_FUSION).toBe('convex');
    expect(validateEnvironment({}).PORT).toBe(3000);
  });

  it('converts numbers and booleans from strings', () => {
    const env = read({ PORT: '8080', WRITE_ADMIN_KEY_FILE: 'false', DATABASE_POOL_SIZE: '4' });
    expect(env.PORT).toBe(8080);
    expect(env.WRITE_ADMIN_KEY_FILE).toBe(false);
    expect(env.DATABASE_POOL_SIZE).toBe(4);
    expect(read({ DOCUMENTS_SEARCH_PARALLEL_BRANCHES: 'off' }).DOCUMENTS_SEARCH_PARALLEL_BRANCHES).toBe(
      false,
    );
  });

  it('treats empty strings of optional URLs as unset', () => {
    const env = read({ DATABASE_URL: '', REDIS_URL: '  ', EMBEDDINGS_BASE_URL: '' });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.REDIS_URL).toBeUndefined();
    expect(env.EMBEDDINGS_BASE_URL).toBeUndefined();
  });

  it('validates the secrets and egress keys', () => {
    const key = Buffer.alloc(32, 7);
    for (const SECRETS_KEY of [key.toString('hex'), key.toString('base64'), key.toString('base64url')]) {
      expect(read({ SECRETS_KEY }).SECRETS_KEY).toBe(SECRETS_KEY);
    }
    expect(() => read({ SECRETS_KEY: 'short' })).toThrow(/SECRETS_KEY/);
    expect(
      read({ SECRET_ENV_GRANTS: 'acme:OPS_SECRET_A,OPS_SECRET_B;*:OPS_SECRET_C' }).SECRET_ENV_GRANTS,
    ).toContain('acme');
    expect(() => read({ SECRET_ENV_GRANTS: 'OPS_SECRET_A' })).toThrow(/SECRET_ENV_GRANTS/);
    expect(read({ SOURCE_HOST_ALLOWLIST: 'db.internal:5432,[::1]' }).SOURCE_HOST_ALLOWLIST).toBe(
      'db.internal:5432,[::1]',
    );
    expect(() => read({ SOURCE_HOST_ALLOWLIST: 'postgres://x' })).toThrow(/SOURCE_HOST_ALLOWLIST/);
    expect(() => read({ HTTP_TOOL_ALLOWLIST: 'http://x' })).toThrow(/HTTP_TOOL_ALLOWLIST/);
  });

  it('rejects a too-short ADMIN_API_KEY', () => {
    expect(() => read({ ADMIN_API_KEY: 'short' })).toThrow(/ADMIN_API_KEY=short/);
  });

  it('lists every bad key of every lib in one error, with its value and reason', () => {
    const problems = problemsOf(() => validateEnvironment(BAD_KEYS));
    expect(problems).toHaveLength(Object.keys(BAD_KEYS).length);
    const text = problems.join('\n');
    for (const [key, value] of Object.entries(BAD_KEYS)) expect(text).toContain(`- ${key}=${value} (`);
    expect(text).toMatch(/- DATABASE_URL=mysql:\/\/x \(must be a postgres/);
    expect(text).toMatch(/- REDIS_URL=http:\/\/r \(must be a redis/);
    // The bad keys belong to every lib's config class: one boot reports them all.
    expect(new Set(Object.keys(BAD_KEYS).map(ownerOf))).toEqual(new Set(CONFIG_SECTIONS.map((s) => s.lib)));
  });

  it('fails the application boot (ConfigModule.forRoot) with the same list', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, BAD_KEYS);
    /** The root ConfigModule's registration: a promise among the platform module's imports. */
    const rootConfig = (module: DynamicModule): Promise<unknown> | undefined => {
      for (const imported of module.imports ?? []) {
        if (imported instanceof Promise) return imported;
        const found = 'module' in imported ? rootConfig(imported) : undefined;
        if (found) return found;
      }
      return undefined;
    };
    try {
      const root = rootConfig(PlatformModule.forRoot({ configSchemas: CONFIG_SCHEMAS }));
      const error = await root?.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidEnvironmentError);
      expect((error as InvalidEnvironmentError).problems).toHaveLength(Object.keys(BAD_KEYS).length);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });

  it('gives each key to exactly one lib', () => {
    const keys = CONFIG_SCHEMAS.flatMap((schema) => configKeys(schema));
    expect(keys.length).toBeGreaterThan(100);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
  });
});

describe('.env.example', () => {
  it('documents every configuration key', () => {
    const example = readFileSync(path.join(__dirname, '../../../.env.example'), 'utf8');
    const keys = CONFIG_SCHEMAS.flatMap((schema) => configKeys(schema));
    expect(keys.filter((key) => !new RegExp(`^#? ?${key}=`, 'm').test(example))).toEqual([]);
  });
});
