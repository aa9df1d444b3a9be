import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface SchemaDiff {
  up: string[];
  down: string[];
}

/**
 * What the entities need that the migrated database lacks: the SQL `migration:generate` would write.
 * Empty on a healthy tree; the CI drift gate fails otherwise.
 */
export async function pendingSchemaChanges(app: INestApplicationContext): Promise<SchemaDiff> {
  const dataSource = app.get(DataSource);
  const sql = await dataSource.driver.createSchemaBuilder().log();
  return {
    up: sql.upQueries.map((q) => q.query),
    down: sql.downQueries.map((q) => q.query),
  };
}
