import { Injectable } from '@nestjs/common';
import { PlatformConfig, type AppRoleName } from '../platform.config';

/**
 * What this process does in the cluster (APP_ROLE). One-shot contexts (CLI, stdio MCP) are built
 * without schedulers and never run background work whatever the role says.
 */
@Injectable()
export class ProcessRole {
  readonly role: AppRoleName;

  constructor(config: PlatformConfig) {
    this.role = config.APP_ROLE;
  }

  /** Serves the public HTTP API (a worker answers /health only). */
  get servesApi(): boolean {
    return this.role !== 'worker';
  }

  /** Claims document jobs from the durable queue. */
  get runsJobs(): boolean {
    return this.role !== 'api';
  }

  /** Runs the scheduled jobs (recovery, cleanup, demo autoload). */
  get runsSchedulers(): boolean {
    return this.role !== 'api';
  }
}
