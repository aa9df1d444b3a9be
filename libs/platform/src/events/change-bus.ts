import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { ioredis, REDIS_DISCONNECT_TIMEOUT_MS } from '../cache/ioredis-module';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { AppEventMap } from './app-events';

/** The events that change what another process serves: published on the change bus. */
export const CLUSTER_EVENTS = [
  'asset.published',
  'asset.rolled_back',
  'asset.archived',
  'documents.changed',
] as const satisfies ReadonlyArray<keyof AppEventMap>;
export type ClusterEventName = (typeof CLUSTER_EVENTS)[number];

export const isClusterEvent = (name: string): name is ClusterEventName =>
  (CLUSTER_EVENTS as readonly string[]).includes(name);

export interface ChangeMessage<K extends ClusterEventName = ClusterEventName> {
  /** The publishing process; it already reacted to its own event and ignores the echo. */
  origin: string;
  name: K;
  payload: AppEventMap[K];
}

export interface ChangeBusHandlers {
  message(message: ChangeMessage): void;
  /** The subscription was (re)established: messages may have been missed meanwhile. */
  reconnected(): void;
}

export type ChangeBusBackend = 'redis' | 'postgres' | 'local';

/**
 * Carries change events between the processes of one deployment: Redis pub/sub, PostgreSQL
 * LISTEN/NOTIFY, or nothing (embedded: one process). Delivery is at most once; a message lost while
 * the bus is down is made up for by the per-tenant change generations (ChangeGenerations).
 */
export abstract class ChangeBus {
  abstract readonly backend: ChangeBusBackend;
  readonly origin = randomUUID();
  abstract start(handlers: ChangeBusHandlers): Promise<void>;
  abstract publish(message: ChangeMessage): Promise<void>;
  abstract stop(): Promise<void>;
  abstract connected(): boolean;

  protected parse(raw: string): ChangeMessage | undefined {
    try {
      const message = JSON.parse(raw) as ChangeMessage;
      return typeof message.origin === 'string' && isClusterEvent(message.name) ? message : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Embedded: a single process, whose in-process events already reach every listener. */
export class LocalChangeBus extends ChangeBus {
  readonly backend = 'local' as const;
  start(): Promise<void> {
    return Promise.resolve();
  }
  publish(): Promise<void> {
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
  connected(): boolean {
    return true;
  }
}

/**
 * Redis pub/sub on one channel; ioredis reconnects and resubscribes by itself. A connection that
 * stays open but delivers nothing (a frozen or overloaded Redis) gives no error, so the bus publishes
 * a heartbeat to itself every `heartbeatMs` on a channel of its own: one not received within
 * `heartbeatMs` makes the bus report itself not connected (health: degraded) until one arrives again,
 * which counts as a reconnect (messages may have been lost meanwhile).
 */
export class RedisChangeBus extends ChangeBus {
  readonly backend = 'redis' as const;
  private readonly logger = new Logger('ChangeBus');
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly channel: string;
  private readonly heartbeatChannel: string;
  private started = false;
  private outageReported = false;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  /** When the oldest heartbeat not yet received was sent. */
  private awaitingHeartbeatSince: number | undefined;
  private stalled = false;
  private handlers: ChangeBusHandlers | undefined;

  constructor(
    url: string,
    keyPrefix: string,
    commandTimeoutMs: number,
    private readonly heartbeatMs = 2000,
  ) {
    super();
    this.channel = `${keyPrefix}changes`;
    this.heartbeatChannel = `${keyPrefix}changes:heartbeat:${this.origin}`;
    const options = {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: Math.max(1000, commandTimeoutMs * 4),
      retryStrategy: (attempt: number) => Math.min(200 * attempt, 2000),
      disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS,
    };
    this.publisher = new (ioredis().default)(url, { ...options, commandTimeout: commandTimeoutMs });
    this.subscriber = new (ioredis().default)(url, options);
    for (const client of [this.publisher, this.subscriber])
      client.on('error', (error: Error) => this.reportOutage(error));
  }

  async start(handlers: ChangeBusHandlers): Promise<void> {
    this.handlers = handlers;
    this.subscriber.on('message', (channel: string, raw: string) => {
      if (channel === this.heartbeatChannel) return this.heartbeatReceived();
      if (channel !== this.channel) return;
      const message = this.parse(raw);
      if (message) handlers.message(message);
    });
    this.subscriber.on('ready', () => {
      // Subscribing again is a no-op when ioredis already resubscribed; it also covers a Redis that
      // was down at start-up. A 'ready' after start-up is a reconnect: messages may have been lost.
      this.subscriber
        .subscribe(this.channel, this.heartbeatChannel)
        .catch((error: Error) => this.reportOutage(error));
      if (!this.started) return;
      this.outageReported = false;
      this.logger.log({ msg: 'change bus reconnected', backend: 'redis' });
      handlers.reconnected();
    });
    await Promise.all(
      [this.publisher, this.subscriber].map((client) =>
        client.connect().catch((error: Error) => this.reportOutage(error)),
      ),
    );
    this.started = true;
    this.heartbeatTimer = setInterval(() => this.heartbeat(), this.heartbeatMs);
    this.heartbeatTimer.unref();
  }

  private heartbeat(): void {
    const now = Date.now();
    this.awaitingHeartbeatSince ??= now;
    if (!this.stalled && !this.delivering(now)) {
      this.stalled = true;
      this.reportOutage(new Error(`no heartbeat delivered within ${this.heartbeatMs} ms`));
    }
    if (this.publisher.status !== 'ready') return;
    this.publisher.publish(this.heartbeatChannel, String(now)).catch(() => undefined);
  }

  private heartbeatReceived(): void {
    // A gap longer than the heartbeat interval is a stall even when no heartbeat tick has marked it yet (the
    // health check may already have reported it): delivery resuming after it needs the catch-up poll.
    const stalled = this.stalled || !this.delivering();
    this.awaitingHeartbeatSince = undefined;
    if (!stalled) return;
    // Delivering again after a stall that kept the connection open (no 'ready' event follows).
    this.stalled = false;
    this.outageReported = false;
    this.logger.log({ msg: 'change bus delivering again', backend: 'redis' });
    this.handlers?.reconnected();
  }

  private delivering(now = Date.now()): boolean {
    return this.awaitingHeartbeatSince === undefined || now - this.awaitingHeartbeatSince <= this.heartbeatMs;
  }

  async publish(message: ChangeMessage): Promise<void> {
    if (this.publisher.status !== 'ready') throw new Error(`redis connection is ${this.publisher.status}`);
    await this.publisher.publish(this.channel, JSON.stringify(message));
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    for (const client of [this.publisher, this.subscriber]) {
      client.removeAllListeners('ready');
      client.disconnect();
    }
    return Promise.resolve();
  }

  connected(): boolean {
    return this.subscriber.status === 'ready' && this.publisher.status === 'ready' && this.delivering();
  }

  private reportOutage(error: Error): void {
    if (this.outageReported) return;
    this.outageReported = true;
    this.logger.warn({
      msg: 'change bus unavailable; relying on the change-generation poll',
      error: error.message,
    });
  }
}

/** NOTIFY payloads are limited to 8000 bytes: a bigger event travels without its document ids. */
const MAX_NOTIFY_BYTES = 7900;

/** PostgreSQL LISTEN/NOTIFY on one dedicated connection, reconnected with backoff. */
export class PostgresChangeBus extends ChangeBus {
  readonly backend = 'postgres' as const;
  static readonly CHANNEL = 'ops_changes';
  private readonly logger = new Logger('ChangeBus');
  private listener: Client | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private handlers: ChangeBusHandlers | undefined;
  private outageReported = false;

  constructor(
    private readonly url: string,
    private readonly notify: (channel: string, payload: string) => Promise<void>,
  ) {
    super();
  }

  async start(handlers: ChangeBusHandlers): Promise<void> {
    this.handlers = handlers;
    await this.listen(false);
  }

  private async listen(reconnect: boolean, attempt = 0): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 5000 });
    client.on('notification', (msg) => {
      if (msg.channel !== PostgresChangeBus.CHANNEL || !msg.payload) return;
      const message = this.parse(msg.payload);
      if (message) this.handlers?.message(message);
    });
    const lost = (error?: Error) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.removeAllListeners();
      client.end().catch(() => undefined);
      this.reportOutage(error ?? new Error('listener connection closed'));
      this.retry(1);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${PostgresChangeBus.CHANNEL}`);
      this.listener = client;
      if (reconnect) {
        this.outageReported = false;
        this.logger.log({ msg: 'change bus reconnected', backend: 'postgres' });
        this.handlers?.reconnected();
      }
    } catch (error) {
      client.removeAllListeners();
      client.end().catch(() => undefined);
      this.reportOutage(error as Error);
      this.retry(attempt + 1);
    }
  }

  private retry(attempt: number): void {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.listen(true, attempt), Math.min(250 * attempt, 2000));
    this.retryTimer.unref();
  }

  async publish(message: ChangeMessage): Promise<void> {
    if (this.stopped) throw new Error('change bus stopped');
    let payload = JSON.stringify(message);
    if (Buffer.byteLength(payload) > MAX_NOTIFY_BYTES && message.name === 'documents.changed') {
      payload = JSON.stringify({ ...message, payload: { ...message.payload, documentIds: [] } });
    }
    await this.notify(PostgresChangeBus.CHANNEL, payload);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.listener;
    this.listener = undefined;
    if (client) {
      client.removeAllListeners();
      await client.end().catch(() => undefined);
    }
  }

  connected(): boolean {
    return this.listener !== undefined;
  }

  private reportOutage(error: Error): void {
    if (this.outageReported) return;
    this.outageReported = true;
    this.logger.warn({
      msg: 'change bus unavailable; relying on the change-generation poll',
      error: error.message,
    });
  }
}
