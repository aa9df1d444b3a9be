import { Injectable } from '@nestjs/common';
import { Timeout } from '@nestjs/schedule';
import { DemoDataService } from './demo-data.service';

/** Right after start-up, fills the demo tenant in the background when DEMO_DATA says so. */
@Injectable()
export class DemoDataScheduler {
  constructor(private readonly demo: DemoDataService) {}

  @Timeout('demo-data-autoload', 0)
  async autoLoad(): Promise<void> {
    await this.demo.autoLoad();
  }
}
