import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';

/** One chat conversation of one user of a tenant; nobody else sees it. */
@Entity('chat_conversations')
@Index(['tenantId', 'userId', 'updatedAt'])
export class ChatConversationEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: object;

  @Column({ type: 'varchar', length: 200 })
  userId!: string;

  /** The start of the first question. */
  @Column({ type: 'varchar', length: 200 })
  title!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
