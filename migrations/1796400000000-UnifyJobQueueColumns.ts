import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables of the one job queue (JobQueue in libs/platform/src/jobs): they share its columns. */
const QUEUE_TABLES = ['document_jobs', 'code_diffs'] as const;

/** A failed job has an error, and every error is an object with a code (JobError). */
const errorCheck = (table: string) =>
  `ALTER TABLE "${table}" ADD CONSTRAINT "CHK_${table}_error" CHECK (
     ("status" <> 'failed' OR "error" IS NOT NULL)
     AND ("error" IS NULL OR (jsonb_typeof("error") = 'object' AND "error" ? 'code')))`;

/** Errors written before the check: wrapped with a code, nothing they held dropped. */
const normaliseErrors = (table: string) =>
  `UPDATE "${table}" SET "error" = CASE
     WHEN "error" IS NULL
       THEN jsonb_build_object('code', 'UNKNOWN', 'message', 'the job failed before its error was recorded')
     WHEN jsonb_typeof("error") <> 'object'
       THEN jsonb_build_object('code', 'UNKNOWN', 'message', '', 'details', "error")
     ELSE jsonb_build_object('code', 'UNKNOWN', 'message', '') || "error" END
   WHERE ("status" = 'failed' AND "error" IS NULL)
      OR ("error" IS NOT NULL AND (jsonb_typeof("error") <> 'object' OR NOT "error" ? 'code'))`;

/** The statements of the migration, for its spec (test/medium/platform/job-queue-migration.spec.ts). */
export function unifyJobQueueColumnsUp(): string[] {
  return [
    `ALTER TABLE "document_jobs" RENAME COLUMN "error_details" TO "error"`,
    `ALTER TABLE "code_diffs" ADD "heartbeat_at" TIMESTAMP WITH TIME ZONE`,
    `ALTER TABLE "code_diffs" ADD "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()`,
    // The owner is subject to the forced row-level security too: its updates would see no tenant's rows.
    ...QUEUE_TABLES.map((table) => `ALTER TABLE "${table}" NO FORCE ROW LEVEL SECURITY`),
    // A running diff's last renewal is unknown; its claim is when it was surely alive.
    `UPDATE "code_diffs" SET "updated_at" = COALESCE("finished_at", "claimed_at", "created_at"),
                             "heartbeat_at" = CASE WHEN "status" = 'running' THEN "claimed_at" END`,
    ...QUEUE_TABLES.map(normaliseErrors),
    ...QUEUE_TABLES.map((table) => `ALTER TABLE "${table}" FORCE ROW LEVEL SECURITY`),
    ...QUEUE_TABLES.map(errorCheck),
  ];
}

export function unifyJobQueueColumnsDown(): string[] {
  return [
    ...QUEUE_TABLES.map((table) => `ALTER TABLE "${table}" DROP CONSTRAINT "CHK_${table}_error"`),
    `ALTER TABLE "code_diffs" DROP COLUMN "updated_at"`,
    `ALTER TABLE "code_diffs" DROP COLUMN "heartbeat_at"`,
    `ALTER TABLE "document_jobs" RENAME COLUMN "error" TO "error_details"`,
  ];
}

/**
 * One job queue (issue 32): document jobs and code diffs keep their tables (their payloads, foreign
 * keys and row-level security stay where they are) and share the queue's columns, so one
 * repository claims, renews, ends, retries, recovers and cleans both. `document_jobs.error_details`
 * becomes `error` like the diffs'; diffs gain `heartbeat_at` and `updated_at`; a failed job must keep
 * an error with a code. A rename and two added columns: no document job (with its bytes) is
 * rewritten or moved; only the diffs' new columns are filled in.
 */
export class UnifyJobQueueColumns1796400000000 implements MigrationInterface {
  name = 'UnifyJobQueueColumns1796400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of unifyJobQueueColumnsUp()) await queryRunner.query(sql);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of unifyJobQueueColumnsDown()) await queryRunner.query(sql);
  }
}
