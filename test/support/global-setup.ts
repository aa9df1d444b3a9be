import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions, EmbeddedPostgres, prepareDatabase } from '@app/platform';
import { applyReadmeRoleRecipe, OWNER_ROLE } from './production-roles';
import {
  asRole,
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

/**
 * The template is set up by docs/operations.md "Production database roles", word for word (the roles are
 * cluster-wide, shared with concurrent runs), and migrated as its owner, not as a superuser.
 */
async function prepareNativeTemplate(): Promise<void> {
  const template = templateDatabaseName();
  assertTestTarget(template);
  await applyReadmeRoleRecipe(NATIVE_ADMIN_URL, template);
  const dataSource = new DataSource(
    buildDataSourceOptions({
      databaseUrl: asRole(withDatabase(NATIVE_ADMIN_URL, template), OWNER_ROLE),
      poolSize: 2,
      statementTimeoutMs: 0,
    }),
  );
  await prepareDatabase(dataSource);
  await dataSource.destroy();
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
