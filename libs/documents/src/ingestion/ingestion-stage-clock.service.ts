import { Injectable } from '@nestjs/common';

export const INGESTION_STAGES = [
  'parse',
  'chunk',
  'embed',
  'insert chunks',
  'insert vectors',
  'term stats',
  'version switch',
  'commit',
  'bulk index build',
  'bulk publish',
] as const;

export type IngestionStage = (typeof INGESTION_STAGES)[number];

/** Milliseconds spent in each ingestion stage since boot, summed over jobs (concurrent jobs overlap). */
export type IngestionStageTimings = Record<IngestionStage, number>;

/** Cumulative per-stage timers of this process's ingestion jobs, for profiling (bench/profile-ingest.ts). */
@Injectable()
export class IngestionStageClock {
  private readonly totals = Object.fromEntries(INGESTION_STAGES.map((s) => [s, 0])) as IngestionStageTimings;

  add(stage: IngestionStage, ms: number): void {
    this.totals[stage] += ms;
  }

  async time<T>(stage: IngestionStage, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.add(stage, performance.now() - started);
    }
  }

  snapshot(): IngestionStageTimings {
    return { ...this.totals };
  }
}
