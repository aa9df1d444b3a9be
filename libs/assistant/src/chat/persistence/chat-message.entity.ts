import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { ChatConversationEntity } from './chat-conversation.entity';

export type ChatRole = 'user' | 'assistant';

/** One message of a conversation; `position` orders them (0, 1, 2, ...). */
@Entity('chat_messages')
@Unique('UQ_chat_messages_conversation_position', ['conversationId', 'position'])
@Check('CHK_chat_messages_role', `"role" IN ('user', 'assistant')`)
export class ChatMessageEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: object;

  @Column({ type: 'uuid' })
  conversationId!: string;

  @ManyToOne(() => ChatConversationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'conversation_id' })
  conversation?: ChatConversationEntity;

  @Column({ type: 'integer' })
  position!: number;

  @Column({ type: 'varchar', length: 16 })
  role!: ChatRole;

  @Column({ type: 'text' })
  content!: string;

  /** For answers: route, grade, rewrite, citations and model calls, as returned to the client. */
  @Column({ type: 'jsonb', nullable: true })
  metadata!: Record<string, unknown> | null;

  /** The request that asked the turn (question and answer carry the same ids). */
  @Column({ type: 'varchar', length: 128, nullable: true })
  requestId!: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  traceId!: string | null;

  /** The API key id of the request. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  keyId!: string | null;

  /** How the turn was asked: api or mcp. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  caller!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
