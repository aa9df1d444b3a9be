import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ConfigDoc, toNumber } from '@app/platform/config';

/** The code lib's keys: diff limits and the diff queue. */
export class CodeConfig {
  @ConfigDoc(
    'the largest file text a diff may leave (413 `DIFF_TOO_LARGE` with the limit)',
    '`1048576` (1 MiB)',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1024)
  CODE_MAX_FILE_BYTES = 1024 * 1024;

  @ConfigDoc(
    'the most text one diff request may carry (befores, afters and unified text)',
    '`8388608` (8 MiB)',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1024)
  CODE_MAX_REQUEST_BYTES = 8 * 1024 * 1024;

  @ConfigDoc("file changes one diff request may carry (`files` entries or a unified diff's file sections)")
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100_000)
  CODE_MAX_FILES_PER_DIFF = 2000;

  /**
   * Diff requests the server's worker indexes at once (0: none; one-shot contexts drain explicitly).
   * Two, so that with CODE_DIFF_MAX_RUNNING_PER_TENANT=1 one tenant's large diff leaves a slot to the others.
   */
  @ConfigDoc("diffs this process's worker indexes at once (`0`: none)")
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(16)
  CODE_WORKER_CONCURRENCY = 2;

  @ConfigDoc(
    "diffs one tenant indexes at once across the cluster (`0`: no cap); with `CODE_WORKER_CONCURRENCY` 2, one tenant's large diff leaves a slot to the others, served round-robin",
  )
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  CODE_DIFF_MAX_RUNNING_PER_TENANT = 1;

  @ConfigDoc(
    'diffs one tenant may have queued or indexing; past it, 429 `DIFF_QUEUE_FULL` with `Retry-After`',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  CODE_MAX_QUEUED_DIFFS_PER_TENANT = 50;

  @ConfigDoc(
    'changed files one tenant may have queued or indexing (summed over its diffs); past it, 429 `DIFF_QUEUE_FULL` with `Retry-After`',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  CODE_MAX_QUEUED_FILES_PER_TENANT = 10_000;

  @ConfigDoc("a claimed code diff's lease")
  @Transform(toNumber)
  @IsInt()
  @Min(2)
  CODE_DIFF_LEASE_SECONDS = 120;

  @ConfigDoc('attempts of a code diff before it is marked failed')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  CODE_DIFF_MAX_ATTEMPTS = 5;

  @ConfigDoc("delay before a failed diff is retried (the seeds' 5 minutes)")
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  CODE_DIFF_RETRY_SECONDS = 300;

  @ConfigDoc('days finished diff requests are kept')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  CODE_DIFF_RETENTION_DAYS = 7;
}
