import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { TenantEntity } from '@app/platform';

export type StageRunStatus = 'running' | 'ok' | 'partial' | 'failed';

/** One execution of a stage: the request as sent, every step's ToolResult and the timings. */
@Entity('ops_stage_runs')
@Index(['tenantId', 'createdAt'])
export class StageRunEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: TenantEntity;

  @Column({ type: 'varchar', length: 200 })
  stageName!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: StageRunStatus;

  @Column({ type: 'varchar', length: 200 })
  userId!: string;

  @Column({ type: 'varchar', length: 128, nullable: true })
  requestId!: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  traceId!: string | null;

  /** Who drove the run: operator (an HTTP request), plan (/ops/ask), agent, mcp. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  caller!: string | null;

  /** The API key id of the request that started the run, when known. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  keyId!: string | null;

  @Column({ type: 'jsonb' })
  request!: Record<string, unknown>;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  steps!: Array<Record<string, unknown>>;

  /** The run's mapped output, stage outcomes (runs of several stages) and warnings. */
  @Column({ type: 'jsonb', nullable: true })
  output!: Record<string, unknown> | null;

  @Column({ type: 'timestamptz' })
  startedAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;

  @Column({ type: 'double precision', nullable: true })
  durationMs!: number | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
