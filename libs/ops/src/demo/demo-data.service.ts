import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import {
  PlatformConfig,
  AuthService,
  BACKGROUND_STATEMENT_TARGET_MS,
  BatchSizer,
  forEachBatch,
  DatabaseInfo,
  DEFAULT_TENANT_SLUG,
  HealthRegistry,
  runAsSystem,
  runAsTenant,
  runInBackground,
} from '@app/platform';
import { OpsConfig } from '../ops.config';
import { METRIC_STEPS } from '../data/ops-vocabulary';
import { buildDemoDataset, DEMO_DATASET_VERSION, DemoScale } from './demo-dataset';
import { DEMO_METRIC_EXPRESSIONS, DemoDataRepository } from './demo-data.repository';
import { DemoKnowledgeService } from './demo-knowledge.service';
import type { DemoLoadState } from './demo-load.entity';

const HOUR_MS = 3_600_000;
const FINE_MS = METRIC_STEPS.fine * 1000;
const HISTORY_DAYS = 30;
const HOURLY_CHUNK_MS = 12 * HOUR_MS;
const FINE_CHUNK_MS = HOUR_MS;
/** Rows of items, relations or events per statement at most (the embedded database starts here and adapts). */
const ROW_BATCH = 500;
/** A `loading` row not touched for this long belongs to a process that died; another may take over. */
const STALE_LOAD_MS = 10 * 60_000;

export interface DemoStatus {
  tenant_id: string;
  state: DemoLoadState | 'not_loaded';
  scale: string | null;
  dataset_version: number | null;
  phase: string | null;
  /** 0-100: share of the load's units of work (phases, metric chunks) done; 100 when ready. */
  progress_percent: number;
  /** Rows written so far while loading (items, relations, events), every table's count when ready. */
  counts: Record<string, number>;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
}

export interface DemoLoadOptions {
  scale?: DemoScale;
  /** The dataset is anchored here (defaults to now); tests pin it. */
  now?: Date;
  /** Take over a `loading` mark however recent (the embedded database has one process, so it is stale). */
  takeOver?: boolean;
  /** Embed the runbooks in this call instead of leaving them to the document worker (CLI, tests). */
  drainDocuments?: boolean;
}

const floorTo = (date: Date, ms: number) => new Date(Math.floor(date.getTime() / ms) * ms);

/** One idempotent unit of the metric load: samples at `stepSeconds` in [from, to), or the hourly roll-up. */
interface MetricWindow {
  kind: 'samples' | 'rollup';
  stepSeconds: number;
  from: number;
  to: number;
}

/**
 * The metric load as small idempotent windows: hourly samples for 30 days, 5-minute samples for the last
 * 24 hours, and hourly samples inside those 24 hours rolled up from the 5-minute ones so both resolutions
 * agree. On the embedded database each window is cut further into statements of about
 * BACKGROUND_STATEMENT_TARGET_MS (BatchSizer), so a request waits at most that long behind the load.
 */
function metricWindows(now: Date): MetricWindow[] {
  const hourEnd = floorTo(now, HOUR_MS);
  const fineEnd = floorTo(now, FINE_MS);
  const fineStart = new Date(fineEnd.getTime() - 24 * HOUR_MS);
  const firstRolledHour = new Date(Math.ceil(fineStart.getTime() / HOUR_MS) * HOUR_MS);
  const hourlyStart = new Date(hourEnd.getTime() - HISTORY_DAYS * 24 * HOUR_MS);
  const windows: MetricWindow[] = [];
  const chunks = (start: number, end: number, size: number, stepSeconds: number) => {
    for (let from = start; from < end; from += size)
      windows.push({ kind: 'samples', stepSeconds, from, to: Math.min(from + size, end) });
  };
  chunks(hourlyStart.getTime(), firstRolledHour.getTime(), HOURLY_CHUNK_MS, METRIC_STEPS.hourly);
  chunks(fineStart.getTime(), fineEnd.getTime(), FINE_CHUNK_MS, METRIC_STEPS.fine);
  windows.push({
    kind: 'rollup',
    stepSeconds: METRIC_STEPS.hourly,
    from: firstRolledHour.getTime(),
    to: hourEnd.getTime(),
  });
  return windows;
}

/**
 * Loads the deterministic demo dataset into a tenant: items, relations and events from a seeded
 * generator, and metric samples synthesised inside PostgreSQL in small idempotent chunks, so a
 * re-run adds nothing twice and other queries keep flowing on the single-connection embedded database;
 * then publishes the OPS catalog and keyword mappings as assets and ingests the runbooks.
 */
@Injectable()
export class DemoDataService implements OnModuleInit {
  private readonly logger = new Logger(DemoDataService.name);
  private readonly running = new Map<string, Promise<void>>();
  private autoTenantId: string | null = null;

  constructor(
    private readonly repository: DemoDataRepository,
    private readonly config: OpsConfig,
    private readonly platform: PlatformConfig,
    private readonly auth: AuthService,
    private readonly database: DatabaseInfo,
    private readonly health: HealthRegistry,
    private readonly knowledge: DemoKnowledgeService,
  ) {}

  onModuleInit(): void {
    this.health.register('demo_data', () => this.healthCheck(), { critical: false });
  }

  async status(tenantId: string): Promise<DemoStatus> {
    const load = await this.repository.findLoad(tenantId);
    return {
      tenant_id: tenantId,
      state: load?.state ?? 'not_loaded',
      scale: load?.scale ?? null,
      dataset_version: load?.datasetVersion ?? null,
      phase: load?.phase ?? null,
      progress_percent: load?.progressPercent ?? 0,
      counts: load?.counts ?? {},
      error: load?.error ?? null,
      started_at: load?.startedAt.toISOString() ?? null,
      finished_at: load?.finishedAt?.toISOString() ?? null,
    };
  }

  /** Claims the tenant and loads in the background; returns the status once the load has begun. */
  async start(tenantId: string, options: DemoLoadOptions = {}): Promise<DemoStatus> {
    const begun = await this.begin(tenantId, options);
    begun?.run.catch((error: Error) =>
      this.logger.error({ msg: 'demo data load failed', tenantId, error: error.message }),
    );
    return this.status(tenantId);
  }

  /** Loads and waits until the dataset is ready (or joins a load already running in this process). */
  async load(tenantId: string, options: DemoLoadOptions = {}): Promise<DemoStatus> {
    await (this.running.get(tenantId) ??
      (await this.begin(tenantId, { drainDocuments: true, ...options }))?.run);
    return this.status(tenantId);
  }

  /** Returns the running load wrapped (a bare promise would be awaited through), or nothing if not claimed. */
  private async begin(
    tenantId: string,
    options: DemoLoadOptions,
  ): Promise<{ run: Promise<void> } | undefined> {
    const existing = this.running.get(tenantId);
    if (existing) return { run: existing };
    const scale = options.scale ?? 'full';
    const staleBefore = new Date(options.takeOver ? Date.now() + 1000 : Date.now() - STALE_LOAD_MS);
    if (!(await this.repository.claimLoad(tenantId, scale, DEMO_DATASET_VERSION, staleBefore)))
      return undefined;
    // Background work: on the embedded database every request goes before the load's next statement.
    const run = runInBackground(() =>
      this.fill(tenantId, scale, options.now ?? new Date(), options.drainDocuments ?? false),
    ).finally(() => this.running.delete(tenantId));
    this.running.set(tenantId, run);
    return { run };
  }

  /**
   * DEMO_DATA=on: load the default tenant unless it is ready; auto: the same, but only on the
   * embedded database, outside tests, and only when the tenant never had demo data (first run).
   */
  async autoLoad(): Promise<void> {
    if (!this.autoLoadWanted()) return;
    const mode = this.config.DEMO_DATA;
    const tenantId = await runAsSystem('demo: find the default tenant', () => this.waitForDefaultTenant());
    if (!tenantId) return;
    this.autoTenantId = tenantId;
    await runAsTenant(tenantId, async () => {
      const load = await this.repository.findLoad(tenantId);
      if (load?.state === 'ready' && load.datasetVersion === DEMO_DATASET_VERSION) return;
      if (mode === 'auto' && load?.state === 'ready') return;
      await this.start(tenantId, {
        scale: this.config.DEMO_DATA_SCALE,
        takeOver: this.database.backend === 'embedded',
      });
    });
  }

  private async fill(tenantId: string, scale: DemoScale, now: Date, drainDocuments: boolean): Promise<void> {
    const started = performance.now();
    const windows = metricWindows(now);
    // Units of work: assets, items, relations, events, every metric chunk, analyze, runbooks.
    const total = 6 + Object.keys(DEMO_METRIC_EXPRESSIONS).length * windows.length;
    let done = 0;
    const counts: Record<string, number> = {};
    let written = '';
    // Written only when what a reader sees changes (phase, percent, counts): most metric chunks change none.
    const phase = async (name: string) => {
      const progressPercent = Math.min(99, Math.floor((done / total) * 100));
      const state = JSON.stringify([name, progressPercent, counts]);
      if (state === written) return;
      written = state;
      await this.repository.updateLoad(tenantId, { phase: name, counts: { ...counts }, progressPercent });
    };
    const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      await phase(name);
      const t0 = performance.now();
      const result = await work();
      this.logger.debug({
        msg: 'demo load step',
        tenantId,
        step: name,
        ms: Math.round(performance.now() - t0),
      });
      done += 1;
      return result;
    };
    try {
      const dataset = buildDemoDataset(scale);
      // The planner's knowledge first: plans made while the rest loads already read the catalog and mappings.
      const assets = await step('assets', () => this.knowledge.publishAssets(tenantId));
      counts.published_assets = assets.length;
      // Embedded: batches of at most ROW_BATCH rows, adapted; native: one statement per table, as before.
      const rows = (all: number) =>
        this.database.backend === 'embedded'
          ? this.sizer(ROW_BATCH, ROW_BATCH / 5, ROW_BATCH, ROW_BATCH / 20)
          : this.sizer(all, 1, all);
      await step('items', () =>
        forEachBatch(dataset.items, rows(dataset.items.length), (batch) =>
          this.repository.upsertItems(tenantId, batch),
        ),
      );
      counts.items = dataset.items.length;
      await step('relations', () =>
        forEachBatch(dataset.relations, rows(dataset.relations.length), (batch) =>
          this.repository.insertRelations(tenantId, batch),
        ),
      );
      counts.relations = dataset.relations.length;
      const anchor = floorTo(now, 60_000);
      await step('events', () =>
        forEachBatch(dataset.events, rows(dataset.events.length), (batch) =>
          this.repository.insertEvents(tenantId, anchor, batch),
        ),
      );
      counts.events = dataset.events.length;
      // One sizer per kind of window: their statements cost differently per step.
      const sizers = new Map<string, BatchSizer>();
      for (const metric of Object.keys(DEMO_METRIC_EXPRESSIONS)) {
        for (const window of windows) {
          const stepMs = window.stepSeconds * 1000;
          const steps = Math.round((window.to - window.from) / stepMs);
          const key = `${window.kind}:${window.stepSeconds}`;
          // At least a quarter window per statement: under CPU contention no size meets the target, and
          // a statement's fixed cost (round trips, planning) would otherwise multiply the load's time.
          // While requests come, down to one step: they wait for the statement that holds the connection.
          if (!sizers.has(key)) sizers.set(key, this.sizer(steps, Math.ceil(steps / 4), steps, 1));
          const sizer = sizers.get(key)!;
          await step(`metrics:${metric}`, async () => {
            for (let from = window.from; from < window.to;) {
              const size = Math.max(1, Math.min(sizer.next, Math.round((window.to - from) / stepMs)));
              const to = from + size * stepMs;
              await sizer.run(size, () =>
                window.kind === 'rollup'
                  ? this.repository.rollUpHourly(tenantId, metric, new Date(from), new Date(to))
                  : this.repository.generateSamples(
                      tenantId,
                      metric,
                      window.stepSeconds,
                      new Date(from),
                      new Date(to),
                    ),
              );
              from = to;
            }
          });
        }
      }
      await step('analyze', () => this.repository.analyze());
      const runbooks = await step('runbooks', () => this.knowledge.ingestRunbooks(tenantId, drainDocuments));
      const finalCounts = {
        ...(await this.repository.counts(tenantId)),
        published_assets: assets.length,
        runbooks: runbooks.length,
      };
      await this.repository.updateLoad(tenantId, {
        state: 'ready',
        phase: 'done',
        counts: finalCounts,
        progressPercent: 100,
        finishedAt: new Date(),
      });
      this.logger.log({
        msg: 'demo data loaded',
        tenantId,
        scale,
        ms: Math.round(performance.now() - started),
        ...finalCounts,
      });
    } catch (error) {
      await this.repository.updateLoad(tenantId, {
        state: 'failed',
        error: (error as Error).message,
        finishedAt: new Date(),
      });
      throw error;
    }
  }

  /**
   * Batches of the load's statements: on the embedded database sized to about
   * BACKGROUND_STATEMENT_TARGET_MS each (a request waits behind at most one of them), on the native
   * server always `max` (it runs requests beside the load).
   */
  private sizer(initial: number, min: number, max: number, requestMin?: number): BatchSizer {
    const targetMs =
      this.database.backend === 'embedded' ? BACKGROUND_STATEMENT_TARGET_MS : Number.POSITIVE_INFINITY;
    return new BatchSizer(initial, { targetMs, min, max, requestMin });
  }

  private async waitForDefaultTenant(): Promise<string | null> {
    for (let attempt = 0; attempt < 240; attempt++) {
      try {
        return (await this.auth.getTenant(DEFAULT_TENANT_SLUG)).id;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    this.logger.warn({ msg: 'demo data skipped: the default tenant never appeared' });
    return null;
  }

  /** Whether this process loads the default tenant's demo data at start (DEMO_DATA, backend, environment). */
  autoLoadWanted(): boolean {
    const mode = this.config.DEMO_DATA;
    if (mode === 'off') return false;
    return mode === 'on' || (this.database.backend === 'embedded' && this.platform.NODE_ENV !== 'test');
  }

  private async healthCheck() {
    const mode = this.config.DEMO_DATA;
    if (!this.autoTenantId) {
      return this.autoLoadWanted()
        ? { status: 'ok' as const, mode, state: 'pending' as const }
        : { status: 'disabled' as const, mode };
    }
    const tenantId = this.autoTenantId;
    const status = await runAsTenant(tenantId, () => this.status(tenantId));
    return {
      status: status.state === 'failed' ? ('degraded' as const) : ('ok' as const),
      mode,
      state: status.state,
      phase: status.phase,
      progress_percent: status.progress_percent,
      counts: status.counts,
      error: status.error ?? undefined,
    };
  }
}
