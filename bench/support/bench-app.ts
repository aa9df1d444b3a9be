import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { AuthService, JsonLogger, runAsSystem } from '@app/platform';
import { AppModule } from '../../apps/api/src/app.module';

export type Backend = 'embedded' | 'native';

export interface BenchApp {
  app: INestApplicationContext;
  backend: Backend;
  tenantId: string;
  /** True when the tenant (and its documents) came from a kept database. */
  reused: boolean;
  close(): Promise<void>;
}

const NATIVE_DEFAULT = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Points the process at a fresh embedded data directory, or at a fresh database on the native
 * server (DATABASE_URL, else the local test server), before the app reads its configuration.
 */
export async function prepareBackend(backend: Backend, label: string): Promise<() => Promise<void>> {
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn';
  process.env.DEMO_DATA = 'off';
  if (backend === 'embedded') {
    if (process.env.BENCH_DATA_DIR) {
      // Kept between runs: a second run on the same directory reuses its seeded tenant.
      process.env.DATA_DIR = process.env.BENCH_DATA_DIR;
      process.env.DATABASE_URL = '';
      return () => Promise.resolve();
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), `ops-${label}-`));
    process.env.DATA_DIR = dir;
    process.env.DATABASE_URL = '';
    return () => Promise.resolve(rmSync(dir, { recursive: true, force: true }));
  }
  const base = process.env.DATABASE_URL || NATIVE_DEFAULT;
  if (process.env.BENCH_REUSE_DATABASE) {
    // Iterating on search only: reuse a database kept by an earlier --keep run.
    const url = new URL(base);
    url.pathname = `/${process.env.BENCH_REUSE_DATABASE}`;
    process.env.DATABASE_URL = url.toString();
    return () => Promise.resolve();
  }
  const name = `ops_${label}_${Date.now().toString(36)}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  if (process.env.BENCH_KEEP_DATABASE) {
    process.stderr.write(`keeping database ${name} (BENCH_REUSE_DATABASE=${name} reuses it)\n`);
    return () => Promise.resolve();
  }
  return async () => {
    const drop = new Client({ connectionString: base });
    await drop.connect();
    await drop.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await drop.end();
  };
}

/**
 * Boots the real application (no HTTP) with a fresh tenant; with BENCH_REUSE_DATABASE, the kept
 * tenant `findKept` returns (by default the first whose slug starts with the label), if any.
 */
export async function startBenchApp(
  backend: Backend,
  label: string,
  findKept?: (app: INestApplicationContext) => Promise<{ id: string } | undefined>,
): Promise<BenchApp> {
  const cleanup = await prepareBackend(backend, label);
  const app = await NestFactory.createApplicationContext(AppModule.forRoot({ schedulers: false }), {
    logger: new JsonLogger({ level: 'warn', format: 'pretty', stream: process.stderr }),
    abortOnError: false,
  });
  const auth = app.get(AuthService);
  const byLabel = async () =>
    (await runAsSystem('bench: find a kept tenant', () => auth.listTenants())).find((t) =>
      t.slug.startsWith(label.replace(/_/g, '-')),
    );
  const reused = process.env.BENCH_REUSE_DATABASE
    ? await runAsSystem('bench: find a kept tenant', () => (findKept ?? byLabel)(app))
    : undefined;
  const slug = `${label.replace(/_/g, '-')}-${Date.now().toString(36)}`;
  const tenantId = reused
    ? reused.id
    : (await runAsSystem('bench: create the bench tenant', () => auth.createTenant(slug, slug, undefined)))
        .tenant.id;
  return {
    app,
    backend,
    reused: Boolean(reused),
    tenantId,
    async close() {
      await app.close();
      await cleanup();
    },
  };
}

export function flag(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(`--${name}`);
  if (index >= 0) return argv[index + 1];
  const inline = argv.find((a) => a.startsWith(`--${name}=`));
  return inline?.slice(name.length + 3);
}

export const loadAverage = (): string =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
