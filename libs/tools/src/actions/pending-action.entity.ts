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

export const PENDING_ACTION_STATUSES = ['pending', 'confirmed', 'rejected', 'expired'] as const;
export type PendingActionStatus = (typeof PENDING_ACTION_STATUSES)[number];

/** A side-effect tool call an agent, chat, plan or MCP client asked for, held until a person decides. */
@Entity('tool_pending_actions')
@Index(['tenantId', 'status', 'createdAt'])
export class PendingActionEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: TenantEntity;

  @Column({ type: 'varchar', length: 200 })
  tool!: string;

  @Column({ type: 'jsonb' })
  input!: Record<string, unknown>;

  @Column({ type: 'varchar', length: 16 })
  status!: PendingActionStatus;

  /** Who asked: agent, chat, plan, mcp or system. */
  @Column({ type: 'varchar', length: 16 })
  caller!: string;

  @Column({ type: 'varchar', length: 200 })
  requestedBy!: string;

  @Column({ type: 'varchar', length: 128, nullable: true })
  requestId!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'varchar', length: 200, nullable: true })
  decidedBy!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  decidedAt!: Date | null;

  /** The ToolResult of the confirmed run. */
  @Column({ type: 'jsonb', nullable: true })
  result!: Record<string, unknown> | null;
}
