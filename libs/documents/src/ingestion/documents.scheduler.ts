import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { Cron, CronExpression, SchedulerRegistry } from '@nestjs/schedule';
import { ClusterLock, ProcessRole } from '@app/platform';
import { DocumentMaintenanceService } from './document-maintenance.service';
import { DocumentsConfig } from '../documents.config';

const RECOVERY_INTERVAL = 'documents-recovery';

/**
 * Thin: recovery every DOCUMENTS_RECOVERY_INTERVAL_SECONDS (and at boot), cleanup daily. Only in
 * processes that run schedulers (APP_ROLE all or worker). Every such process's timer fires, and the
 * cluster lock lets one run per interval across the cluster (ClusterLock `onceEverySeconds`).
 */
@Injectable()
export class DocumentsScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DocumentsScheduler');

  constructor(
    private readonly config: DocumentsConfig,
    private readonly maintenance: DocumentMaintenanceService,
    private readonly role: ProcessRole,
    private readonly lock: ClusterLock,
    @Optional() private readonly registry?: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.registry || !this.role.runsSchedulers) return;
    const seconds = this.config.DOCUMENTS_RECOVERY_INTERVAL_SECONDS;
    const run = () =>
      void this.lock
        .runExclusive(RECOVERY_INTERVAL, () => this.maintenance.recover(), { onceEverySeconds: seconds })
        .catch((error: Error) => this.logger.warn({ msg: 'recovery failed', error: error.message }));
    const interval = setInterval(run, seconds * 1000);
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
    if (!this.role.runsSchedulers) return;
    await this.lock.runExclusive('documents-cleanup', () => this.maintenance.cleanup(), {
      onceEverySeconds: 86_400,
    });
  }
}
