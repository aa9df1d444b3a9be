import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { Cron, CronExpression, SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '@app/platform';
import { DocumentMaintenanceService } from './document-maintenance.service';

const RECOVERY_INTERVAL = 'documents-recovery';

/** Thin: recovery every DOCUMENTS_RECOVERY_INTERVAL_SECONDS (and once at boot), cleanup daily. */
@Injectable()
export class DocumentsScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DocumentsScheduler');

  constructor(
    private readonly config: AppConfig,
    private readonly maintenance: DocumentMaintenanceService,
    @Optional() private readonly registry?: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.registry) return;
    const run = () =>
      void this.maintenance
        .recover()
        .catch((error: Error) => this.logger.warn({ msg: 'recovery failed', error: error.message }));
    const interval = setInterval(run, this.config.get('DOCUMENTS_RECOVERY_INTERVAL_SECONDS') * 1000);
    interval.unref();
    this.registry.addInterval(RECOVERY_INTERVAL, interval);
    run();
  }

  onApplicationShutdown(): void {
    if (this.registry?.doesExist('interval', RECOVERY_INTERVAL))
      this.registry.deleteInterval(RECOVERY_INTERVAL);
  }

  @Cron(CronExpression.EVERY_DAY_AT_3AM, { name: 'documents-cleanup' })
  async cleanup(): Promise<void> {
    await this.maintenance.cleanup();
  }
}
