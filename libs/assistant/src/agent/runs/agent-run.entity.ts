import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { TenantEntity } from '@app/platform';

/**
 * `running`: working on the request; `completed`: the final response is stored; `awaiting_confirmation`:
 * paused on held side-effect calls until a person decides each; `resuming`: every call is decided and
 * one process continues the run; `cancelled`: a streamed run's caller disconnected; `failed`.
 */
export const AGENT_RUN_STATUSES = [
  'running',
  'completed',
  'awaiting_confirmation',
  'resuming',
  'cancelled',
  'failed',
] as const;
export type AgentRunStatus = (typeof AGENT_RUN_STATUSES)[number];

/** One held call a paused run waits on, and its decision once a person made it. */
export interface AgentRunPendingCall {
  call_id: string;
  action_id: string;
  tool: string;
  decision: 'confirmed' | 'rejected' | null;
  /** The confirmed run's ToolResult. */
  result?: Record<string, unknown>;
  decided_by?: string;
}

/**
 * One run of the tool-calling agent: who asked (ids to find it from a log line or a complaint), the
 * result, and, while paused, what is needed to continue it in any process (`state`: the model's
 * messages, the calls so far, the iterations left).
 */
@Entity('agent_runs')
@Index(['tenantId', 'status', 'createdAt'])
export class AgentRunEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: TenantEntity;

  @Column({ type: 'varchar', length: 24 })
  status!: AgentRunStatus;

  /** `llm` or `fallback`. */
  @Column({ type: 'varchar', length: 16 })
  mode!: string;

  /** The end user the run acts for. */
  @Column({ type: 'varchar', length: 200 })
  userId!: string;

  /** The API key's user that made the call. */
  @Column({ type: 'varchar', length: 200 })
  callerId!: string;

  /** The API key id of the call, when known. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  keyId!: string | null;

  /** How the run was started: api, mcp, agent or ask. */
  @Column({ type: 'varchar', length: 16 })
  caller!: string;

  @Column({ type: 'varchar', length: 128, nullable: true })
  requestId!: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  traceId!: string | null;

  @Column({ type: 'text' })
  prompt!: string;

  /** Where the run's webhook events are POSTed (`callback_url` of the request), if anywhere. */
  @Column({ type: 'text', nullable: true })
  callbackUrl!: string | null;

  /** The held calls the run waits on (empty once completed without any). */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  pending!: AgentRunPendingCall[];

  /** What resuming needs: messages, tool calls, LLM calls, thoughts, warnings, iterations. */
  @Column({ type: 'jsonb', nullable: true })
  state!: Record<string, unknown> | null;

  /** The AgentResult as returned (the last one, once resumed). */
  @Column({ type: 'jsonb', nullable: true })
  result!: Record<string, unknown> | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
