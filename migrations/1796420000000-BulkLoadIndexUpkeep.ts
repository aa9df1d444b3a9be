import { MigrationInterface, QueryRunner } from 'typeorm';
import { APP_ROLE } from './1795607000000-EnableRowLevelSecurity';
import { SYSTEM_ROLE } from './1795800000000-SeparateSystemAndSqlToolRoles';

const FUNCTIONS = ['ops_bulk_analyze()', 'ops_bulk_keyword_index(boolean)'];
const KEYWORD_INDEX = '"IDX_document_chunks_search_vector"';

/**
 * Two things the bulk path does around a load, as the owner of the tables (SECURITY DEFINER, fixed bodies).
 *
 * Planner statistics after a bulk load (ARCHITECTURE.md "Bulk ingestion"). A bulk load grows the
 * document tables by orders of magnitude in minutes; until they are analyzed the planner estimates a
 * newly loaded tenant at about one row and serves its vector search by an exact scan of every vector
 * of the tenant instead of the HNSW index (174 ms at 10k chunks, BENCHMARKS.md). Autovacuum analyzes
 * a table only once a tenth of it changed (a 100k load onto 1M rows may never trigger it) and not at
 * all where it is off, so the bulk path analyzes the tables it wrote when it publishes. Only the owner
 * may ANALYZE (like ops_analyze_ops_tables).
 *
 * The keyword GIN index while a bulk segment is loading: entries go through a pending list of at most
 * 512 kB (`fastupdate`), merged into the index a list at a time, instead of one index insertion per
 * lexeme (~100 per chunk): 0.26 against 0.71 ms per chunk in BENCHMARKS.md "Bulk ingestion". Every
 * keyword search reads the list (why the index is otherwise `fastupdate = off`, migration
 * 1795318600000), so it stays small, and when no segment is loading the index goes back to
 * `fastupdate = off` with the list merged. Idempotent both ways; entries in the list are searched like
 * any other, so nothing becomes unsearchable. Its ALTER waits at most 2 s for the index's lock (searches
 * queue behind a waiting ALTER) and otherwise changes nothing and returns false: the next call retries.
 */
export class BulkLoadIndexUpkeep1796420000000 implements MigrationInterface {
  name = 'BulkLoadIndexUpkeep1796420000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ops_bulk_analyze()
       RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $fn$
       BEGIN
         ANALYZE documents, document_chunks, chunk_embeddings, document_term_stats;
       END $fn$`,
    );
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ops_bulk_keyword_index(loading boolean)
       RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $fn$
       DECLARE
         fast boolean := EXISTS (SELECT 1 FROM pg_class
                                 WHERE oid = '${KEYWORD_INDEX}'::regclass AND 'fastupdate=on' = ANY (reloptions));
       BEGIN
         -- ALTER INDEX takes an ACCESS EXCLUSIVE lock on the index: every search queues behind it while it
         -- waits for a transaction writing chunks. Not for long: then nothing changes (false), the next call retries.
         PERFORM set_config('lock_timeout', '2s', true);
         IF loading AND NOT fast THEN
           ALTER INDEX ${KEYWORD_INDEX} SET (fastupdate = on, gin_pending_list_limit = 512);
         ELSIF NOT loading AND fast THEN
           ALTER INDEX ${KEYWORD_INDEX} SET (fastupdate = off);
           ALTER INDEX ${KEYWORD_INDEX} RESET (gin_pending_list_limit);
           PERFORM set_config('lock_timeout', '0', true);
           PERFORM gin_clean_pending_list('${KEYWORD_INDEX}'::regclass);
         END IF;
         RETURN true;
       EXCEPTION WHEN lock_not_available THEN
         RETURN false;
       END $fn$`,
    );
    for (const fn of FUNCTIONS) {
      await queryRunner.query(`REVOKE ALL ON FUNCTION ${fn} FROM PUBLIC`);
      await queryRunner.query(`GRANT EXECUTE ON FUNCTION ${fn} TO ${APP_ROLE}, ${SYSTEM_ROLE}`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const fn of FUNCTIONS) await queryRunner.query(`DROP FUNCTION IF EXISTS ${fn}`);
  }
}
