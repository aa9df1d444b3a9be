import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomUUID } from 'node:crypto';
import {
  PlatformException,
  PlatformExceptionCode,
  PeriodicSweep,
  ProcessRole,
  runAsTenant,
  TenantSecretsService,
} from '@app/platform';
import { OutboundErrorCode, OutboundHttpClient, ToolError } from '@app/tools';
import { AgentRunException } from '../runs/agent-run.exception';
import type { AgentRunDeliveryEntity, DeliveryAttempt, RunWebhookEvent } from './agent-run-delivery.entity';
import { AgentRunDeliveryRepository, DeliveryOutcome } from './agent-run-delivery.repository';
import {
  signatureHeader,
  WEBHOOK_HEADERS,
  WEBHOOK_SECRET_NAME,
  WEBHOOK_SECRET_REF,
} from './webhook-signature.util';
import { AssistantConfig } from '../../assistant.config';

/** Longest wait between two attempts, whatever WEBHOOK_RETRY_BASE_SECONDS doubles to. */
const MAX_BACKOFF_SECONDS = 3600;
/** A receiver's answer is not read past this (only its status matters; its start is kept for the log). */
const MAX_RESPONSE_BYTES = 64 * 1024;
const RESPONSE_EXCERPT_CHARS = 300;
/** How long shutdown waits for attempts in flight before it cuts them short. */
const SHUTDOWN_GRACE_MS = 5000;

/** An event of a run, as the agent reports it. */
export interface RunWebhookEventInput {
  tenantId: string;
  runId: string;
  callbackUrl: string;
  event: RunWebhookEvent;
  /** The event's `data`: the run's ids, status, final response or held calls. */
  data: Record<string, unknown>;
}

/** A delivery as `GET /internal/v1/llm/runs/{id}` shows it. */
export interface RunWebhookDeliveryView {
  delivery_id: string;
  event: string;
  status: 'pending' | 'delivering' | 'delivered' | 'failed';
  attempt_count: number;
  attempts: DeliveryAttempt[];
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
}

/**
 * Run webhooks (`callback_url`): each event of a run is stored as a delivery first, then POSTed from
 * the process that reached it, signed with the tenant's `WEBHOOK_SIGNING_SECRET` (`X-Ops-Signature:
 * t=<unix>,v1=<HMAC-SHA256 of "<t>.<body>">`), through the http tools' egress-checked client (no
 * redirects followed). A 2xx delivers it; a 5xx, 408, 429, timeout or connection failure schedules the
 * next attempt (WEBHOOK_RETRY_BASE_SECONDS doubling, WEBHOOK_MAX_ATTEMPTS in all); any other answer
 * fails it. The scheduler of any process sends the due retries and takes over deliveries a dead
 * process left `delivering`: at least once, the same delivery id on every attempt.
 */
@Injectable()
export class RunWebhookService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunWebhookService.name);
  private readonly inflight = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  private readonly retries = new PeriodicSweep(
    () => this.sendDue(),
    (error) => this.logger.warn({ msg: 'webhook retry sweep failed', error: error.message }),
  );

  constructor(
    private readonly config: AssistantConfig,
    private readonly deliveries: AgentRunDeliveryRepository,
    private readonly client: OutboundHttpClient,
    private readonly secrets: TenantSecretsService,
    private readonly role: ProcessRole,
    @Optional() private readonly scheduler?: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.scheduler || !this.role.runsSchedulers) return;
    this.retries.start(this.config.WEBHOOK_RETRY_CHECK_SECONDS * 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    const sweepStopped = this.retries.stop();
    // Attempts in flight get a grace period to finish (a receiver that already has the event would
    // otherwise get it again); one cut short is recorded and retried, or taken over after the lease.
    const pending = Promise.allSettled([...this.inflight, sweepStopped]);
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([pending, new Promise((resolve) => (grace = setTimeout(resolve, SHUTDOWN_GRACE_MS)))]);
    clearTimeout(grace);
    this.shutdown.abort(new Error('the process is shutting down'));
    await pending;
  }

  /**
   * Checks a callback URL when the run is requested: the egress policy of the http tools (http/https,
   * no credentials, the host resolves to public addresses unless HTTP_TOOL_ALLOWLIST names it) and the
   * tenant's signing secret exists. Throws a 400 AgentRunException saying which.
   */
  async checkCallback(tenantId: string, url: string): Promise<void> {
    // The secret first: a tenant without one learns that without a DNS lookup of its URL.
    try {
      await this.secrets.assertResolvable(tenantId, WEBHOOK_SECRET_REF);
    } catch (error) {
      if (
        error instanceof PlatformException &&
        error.code === (PlatformExceptionCode.SECRET_REF_UNRESOLVABLE as string)
      )
        throw AgentRunException.webhookSecretMissing(WEBHOOK_SECRET_NAME);
      throw error;
    }
    try {
      await this.client.vet(url);
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      const hint =
        error.code === (OutboundErrorCode.ADDRESS_BLOCKED as string)
          ? ' (an operator allows an internal host with HTTP_TOOL_ALLOWLIST)'
          : '';
      throw AgentRunException.callbackRefused(`${error.message}${hint}`, error.code, error.details);
    }
  }

  /**
   * Stores the event's delivery and starts its first attempt in the background (the caller does not
   * wait for the receiver). Never throws: a delivery that could not even be stored is logged.
   */
  async publish(input: RunWebhookEventInput): Promise<void> {
    const id = randomUUID();
    const body = JSON.stringify({
      id,
      type: input.event,
      created_at: new Date().toISOString(),
      tenant_id: input.tenantId,
      data: input.data,
    });
    let delivery: AgentRunDeliveryEntity;
    try {
      delivery = await this.deliveries.createClaimed({
        id,
        tenantId: input.tenantId,
        runId: input.runId,
        event: input.event,
        url: input.callbackUrl,
        body,
      });
    } catch (error) {
      this.logger.error({
        msg: 'webhook delivery not stored',
        run_id: input.runId,
        event: input.event,
        error: (error as Error).message,
      });
      return;
    }
    this.track(this.attempt(delivery));
  }

  /** The deliveries of a run, oldest first. */
  async deliveriesOf(tenantId: string, runId: string): Promise<RunWebhookDeliveryView[]> {
    return (await this.deliveries.forRun(tenantId, runId)).map((delivery) => ({
      delivery_id: delivery.id,
      event: delivery.event,
      status: delivery.status,
      attempt_count: delivery.attemptCount,
      attempts: delivery.attempts,
      next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
      delivered_at: delivery.deliveredAt?.toISOString() ?? null,
      created_at: delivery.createdAt.toISOString(),
    }));
  }

  /** Claims the due deliveries (retries, and those a dead process left) and attempts each; returns how many. */
  sweep(): Promise<number> {
    return this.retries.run();
  }

  private async sendDue(): Promise<number> {
    const leaseSeconds = Math.ceil(this.config.WEBHOOK_TIMEOUT_MS / 1000) + 30;
    const claimed = await this.deliveries.claimDue(leaseSeconds);
    await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
    return claimed.length;
  }

  private track(attempt: Promise<void>): void {
    this.inflight.add(attempt);
    void attempt.finally(() => this.inflight.delete(attempt));
  }

  /** One attempt of a claimed delivery, recorded on it whatever happens. */
  private attempt(delivery: AgentRunDeliveryEntity): Promise<void> {
    return runAsTenant(delivery.tenantId, async () => {
      const number = delivery.attemptCount + 1;
      const at = new Date();
      const started = performance.now();
      let statusCode: number | null = null;
      let error: string | null = null;
      let excerpt: string | undefined;
      let retryable = true;
      try {
        const secret = await this.secrets.resolve(delivery.tenantId, WEBHOOK_SECRET_REF);
        const timestamp = Math.floor(Date.now() / 1000);
        const response = await this.client.request({
          method: 'POST',
          url: delivery.url,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'ops-copilot-webhook',
            [WEBHOOK_HEADERS.event]: delivery.event,
            [WEBHOOK_HEADERS.delivery]: delivery.id,
            [WEBHOOK_HEADERS.signature]: signatureHeader(secret, timestamp, delivery.body),
          },
          body: delivery.body,
          timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
          maxResponseBytes: MAX_RESPONSE_BYTES,
          maxRedirects: 0,
          signal: this.shutdown.signal,
        });
        statusCode = response.status;
        excerpt = response.body.toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS) || undefined;
        if (statusCode < 200 || statusCode >= 300) {
          error = `the receiver answered ${statusCode}`;
          retryable = statusCode >= 500 || statusCode === 408 || statusCode === 429;
        }
      } catch (failure) {
        error = (failure as Error).message;
        // An address the egress policy refuses now (the name resolves elsewhere) stays refused.
        retryable = !(
          failure instanceof ToolError && failure.code === (OutboundErrorCode.ADDRESS_BLOCKED as string)
        );
      }
      const delivered = error === null;
      const retry = !delivered && retryable && number < this.config.WEBHOOK_MAX_ATTEMPTS;
      const outcome: DeliveryOutcome = {
        status: delivered ? 'delivered' : retry ? 'pending' : 'failed',
        attempt: {
          attempt: number,
          at: at.toISOString(),
          duration_ms: Math.round(performance.now() - started),
          status_code: statusCode,
          error,
          ...(excerpt !== undefined ? { response_excerpt: excerpt } : {}),
          outcome: delivered ? 'delivered' : retry ? 'retry' : 'failed',
        },
        nextAttemptAt: retry ? new Date(Date.now() + this.backoffSeconds(number) * 1000) : null,
      };
      this.logger.log({
        msg: `webhook ${outcome.attempt.outcome}`,
        run_id: delivery.runId,
        delivery_id: delivery.id,
        event: delivery.event,
        attempt: number,
        status_code: statusCode,
        ...(error ? { error } : {}),
      });
      await this.deliveries.recordAttempt(delivery, outcome).catch((failure: Error) =>
        // Left `delivering`: the scheduler takes it over after the lease and sends it again.
        this.logger.error({
          msg: 'webhook attempt not recorded',
          delivery_id: delivery.id,
          error: failure.message,
        }),
      );
    });
  }

  /** Wait after attempt `n` failed: base × 2^(n−1), at most an hour. */
  private backoffSeconds(attempt: number): number {
    return Math.min(this.config.WEBHOOK_RETRY_BASE_SECONDS * 2 ** (attempt - 1), MAX_BACKOFF_SECONDS);
  }
}
