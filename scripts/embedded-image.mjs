// `npm run embedded:image`: makes the prepared embedded cluster a first start unpacks instead of running
// initdb and every migration (libs/platform/src/database/cluster-image.ts): a PGlite cluster made by
// initdb, with pgvector and the migrations of this checkout applied (by the built code's own migration
// runner) and nothing else, dumped as a tar, brotli-compressed, with the PGlite and pgvector versions it
// was made with. Migrations added later run on top of it at a first start; run this again after adding
// some (to keep first starts fast) and after upgrading @electric-sql/pglite or pglite-pgvector.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { build, root } from './build.mjs';

const require = createRequire(import.meta.url);
const outDir = path.join(root, 'libs/platform/src/database');
const dist = (file) => require(path.join(root, 'dist/libs/platform/src/database', file));

await build({ ifStale: true });
const { EmbeddedPostgres } = dist('embedded-postgres.js');
const { buildDataSourceOptions } = dist('data-source-options.js');
const { ensureVectorExtension, runMigrationsLocked } = dist('database-preparation.js');
const { installedVersions } = dist('cluster-image.js');
const { DataSource } = require('typeorm');
const { PGlite } = require('@electric-sql/pglite');
const { vector } = require('@electric-sql/pglite-pgvector');

const started = Date.now();
const work = mkdtempSync(path.join(os.tmpdir(), 'ops-cluster-image-'));
try {
  const embedded = new EmbeddedPostgres(work, 2, { clusterImage: false });
  const connection = await embedded.start();
  let migrations;
  try {
    const migrator = new DataSource(
      buildDataSourceOptions({
        embedded: connection,
        poolSize: 1,
        statementTimeoutMs: 0,
        applicationName: 'ops-image',
      }),
    );
    await migrator.initialize();
    await ensureVectorExtension(migrator);
    migrations = await runMigrationsLocked(migrator);
    await migrator.query('CHECKPOINT');
    await migrator.destroy();
  } finally {
    await embedded.stop();
  }
  const db = await PGlite.create({ dataDir: embedded.pgDataDir, extensions: { vector } });
  const tar = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer());
  await db.close();
  const compressed = brotliCompressSync(tar, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 9,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: tar.length,
    },
  });
  writeFileSync(path.join(outDir, 'embedded-cluster.tar.br'), compressed);
  const meta = { ...installedVersions(), migrations };
  writeFileSync(path.join(outDir, 'embedded-cluster.json'), `${JSON.stringify(meta, null, 2)}\n`);
  console.error(
    `embedded cluster image: ${tar.length} bytes, ${compressed.length} compressed, PGlite ${meta.pglite} + ` +
      `pgvector ${meta.pgvector}, ${migrations.length} migrations, in ${Date.now() - started} ms`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
// The embedded database's worker thread and pools may keep handles open.
process.exit(0);
