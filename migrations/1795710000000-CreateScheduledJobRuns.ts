import { MigrationInterface, QueryRunner } from 'typeorm';
import { APP_ROLE } from './1795607000000-EnableRowLevelSecurity';

/**
 * When each scheduled job last ran anywhere in the cluster: a process claims a run by moving
 * `last_run_at` forward only when the job's interval has passed (ClusterLock), so a job runs once
 * per cluster per interval, not once per worker. System rows, no tenant: no row-level security, and
 * only the application role may read or write them (not the sql tool's role).
 */
export class CreateScheduledJobRuns1795710000000 implements MigrationInterface {
  name = 'CreateScheduledJobRuns1795710000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "scheduled_job_runs" (
         "name" character varying(200) NOT NULL,
         "last_run_at" TIMESTAMP WITH TIME ZONE NOT NULL,
         CONSTRAINT "PK_scheduled_job_runs" PRIMARY KEY ("name"))`,
    );
    await queryRunner.query(`GRANT SELECT, INSERT, UPDATE ON TABLE "scheduled_job_runs" TO ${APP_ROLE}`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "scheduled_job_runs"`);
  }
}
