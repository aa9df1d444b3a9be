import { MigrationInterface, QueryRunner } from 'typeorm';
import { APP_ROLE } from './1795607000000-EnableRowLevelSecurity';
import { SYSTEM_ROLE } from './1795800000000-SeparateSystemAndSqlToolRoles';

const FUNCTION = 'ops_bulk_analyze()';

/**
 * Planner statistics after a bulk load (ARCHITECTURE.md "Bulk ingestion"). A bulk load grows the
 * document tables by orders of magnitude in minutes; until they are analyzed the planner estimates a
 * newly loaded tenant at about one row and serves its vector search by an exact scan of every vector
 * of the tenant instead of the HNSW index (174 ms at 10k chunks, BENCHMARKS.md). Autovacuum analyzes
 * a table only once a tenth of it changed (a 100k load onto 1M rows may never trigger it) and not at
 * all where it is off, so the bulk path analyzes the tables it wrote when it publishes. Only the owner
 * may ANALYZE: a SECURITY DEFINER function with a fixed body, like ops_analyze_ops_tables.
 */
export class AnalyzeAfterBulkLoad1796420000000 implements MigrationInterface {
  name = 'AnalyzeAfterBulkLoad1796420000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ${FUNCTION}
       RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $fn$
       BEGIN
         ANALYZE documents, document_chunks, chunk_embeddings, document_term_stats;
       END $fn$`,
    );
    await queryRunner.query(`REVOKE ALL ON FUNCTION ${FUNCTION} FROM PUBLIC`);
    await queryRunner.query(`GRANT EXECUTE ON FUNCTION ${FUNCTION} TO ${APP_ROLE}, ${SYSTEM_ROLE}`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION IF EXISTS ${FUNCTION}`);
  }
}
