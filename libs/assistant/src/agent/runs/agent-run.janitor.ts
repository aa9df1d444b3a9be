import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { PeriodicSweep, ProcessRole, runAsTenant } from '@app/platform';
import { ToolCallingAgentService } from '../tool-calling-agent.service';
import { AgentRunRepository } from './agent-run.repository';
import { AssistantConfig } from '../../assistant.config';

/**
 * Takes over agent runs stuck in `resuming`: the process that was continuing one (after the last
 * decision on its held calls) died, so nothing would ever finish it. Once AGENT_RESUME_LEASE_SECONDS
 * have passed without the run being stored, a scheduler claims it (one UPDATE across replicas, so
 * one taker) and continues it from its stored state: the decisions are recorded and the confirmed
 * tools already ran, so continuing only gives their results to the model (or writes the fallback's
 * template). After AGENT_RESUME_MAX_ATTEMPTS takeovers the run is marked failed instead.
 */
@Injectable()
export class AgentRunJanitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AgentRunJanitor.name);
  private readonly takeovers = new PeriodicSweep(
    () => this.takeOver(),
    (error) => this.logger.warn({ msg: 'agent run takeover failed', error: error.message }),
  );

  constructor(
    private readonly config: AssistantConfig,
    private readonly runs: AgentRunRepository,
    private readonly agent: ToolCallingAgentService,
    private readonly role: ProcessRole,
    @Optional() private readonly scheduler?: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.scheduler || !this.role.runsSchedulers) return;
    this.takeovers.start(this.config.AGENT_RESUME_CHECK_SECONDS * 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.takeovers.stop();
  }

  /** Claims and finishes the runs stuck in `resuming`; returns how many were taken over. */
  sweep(): Promise<number> {
    return this.takeovers.run();
  }

  private async takeOver(): Promise<number> {
    const claimed = await this.runs.claimStuckResuming(this.config.AGENT_RESUME_LEASE_SECONDS);
    const maxAttempts = this.config.AGENT_RESUME_MAX_ATTEMPTS;
    for (const run of claimed) {
      const takeovers = Number((run.state as { takeovers?: number } | null)?.takeovers ?? 1);
      await runAsTenant(run.tenantId, async () => {
        if (takeovers > maxAttempts) {
          this.logger.warn({ msg: 'agent run failed: stuck resuming', run_id: run.id, takeovers });
          await this.agent.failRun(run, `the run was stuck resuming after ${maxAttempts} takeovers`);
          return;
        }
        this.logger.log({ msg: 'agent run taken over: stuck resuming', run_id: run.id, takeovers });
        const resumed = await this.agent.continueRun(run);
        this.logger.log({
          msg: 'agent run taken over and continued',
          run_id: run.id,
          status: resumed.status,
        });
      });
    }
    return claimed.length;
  }
}
