import { Injectable } from '@nestjs/common';
import { Timeout } from '@nestjs/schedule';
import { ClusterLock, ProcessRole } from '@app/platform';
import { DemoDataService } from './demo-data.service';

/** Right after start-up, fills the demo tenant in the background when DEMO_DATA says so (one process of the cluster). */
@Injectable()
export class DemoDataScheduler {
  constructor(
    private readonly demo: DemoDataService,
    private readonly role: ProcessRole,
    private readonly lock: ClusterLock,
  ) {}

  @Timeout('demo-data-autoload', 0)
  async autoLoad(): Promise<void> {
    if (!this.role.runsSchedulers) return;
    await this.lock.runExclusive('demo-data-autoload', () => this.demo.autoLoad());
  }
}
