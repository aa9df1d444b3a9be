import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  APP_ROLE,
  buildDataSourceOptions,
  EmbeddedPostgres,
  prepareDatabase,
  SQL_TOOL_ROLE,
} from '@app/platform';
import {
  assertTestTarget,
  embeddedTemplateDir,
  NATIVE_ADMIN_URL,
  templateDatabaseName,
  testBackend,
  testRunDir,
  withDatabase,
} from './test-backend';

/** Migrates one template (database or data directory) per run; each spec file copies it. */
export default async function globalSetup(): Promise<void> {
  Logger.overrideLogger(['error']);
  process.env.OPS_TEST_RUN_ID ??= `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  mkdirSync(testRunDir(), { recursive: true });
  if (testBackend() === 'native') await prepareNativeTemplate();
  else await prepareEmbeddedTemplate();
}

async function prepareNativeTemplate(): Promise<void> {
  const template = templateDatabaseName();
  assertTestTarget(template);
  const admin = new Client({ connectionString: NATIVE_ADMIN_URL });
  await admin.connect();
  try {
    await ensureRoles(admin);
    await admin.query(`CREATE DATABASE "${template}"`);
  } finally {
    await admin.end();
  }
  const dataSource = new DataSource(
    buildDataSourceOptions({
      databaseUrl: withDatabase(NATIVE_ADMIN_URL, template),
      poolSize: 2,
      statementTimeoutMs: 0,
    }),
  );
  await prepareDatabase(dataSource);
  await dataSource.destroy();
}

/**
 * The row-level-security roles are cluster-wide: created once (tests connect as ops_app with trust
 * authentication), tolerating a concurrent run creating them at the same moment.
 */
async function ensureRoles(admin: Client): Promise<void> {
  for (const statement of [
    `CREATE ROLE ${APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE`,
    `CREATE ROLE ${SQL_TOOL_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS`,
  ]) {
    try {
      await admin.query(statement);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== '42710' && code !== '23505') throw error; // exists already (or created concurrently)
    }
  }
  await admin.query(`ALTER ROLE ${APP_ROLE} LOGIN`);
}

async function prepareEmbeddedTemplate(): Promise<void> {
  const dir = embeddedTemplateDir();
  assertTestTarget(dir);
  const embedded = new EmbeddedPostgres(dir, 3);
  const connection = await embedded.start();
  try {
    const dataSource = new DataSource(
      buildDataSourceOptions({ embedded: connection, poolSize: 2, statementTimeoutMs: 0 }),
    );
    await prepareDatabase(dataSource);
    await dataSource.destroy();
  } finally {
    await embedded.stop();
  }
}
