import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError } from 'typeorm';
import { ChatConversationEntity } from './chat-conversation.entity';
import { ChatMessageEntity, ChatRole } from './chat-message.entity';

const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;
const POSITION_RETRIES = 3;

function isUniqueViolation(error: unknown): boolean {
  return error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '23505';
}

/** The ids a chat turn is stored with. */
export interface ChatTurnIds {
  request_id?: string | null;
  trace_id?: string | null;
  key_id?: string | null;
  caller?: string | null;
}

/** Conversations and their messages, always filtered by tenant and user. */
@Injectable()
export class ChatRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  createConversation(tenantId: string, userId: string, title: string): Promise<ChatConversationEntity> {
    const repo = this.dataSource.getRepository(ChatConversationEntity);
    return repo.save(repo.create({ tenantId, userId, title }));
  }

  findConversation(tenantId: string, userId: string, id: string): Promise<ChatConversationEntity | null> {
    if (!UUID.test(id)) return Promise.resolve(null);
    return this.dataSource.getRepository(ChatConversationEntity).findOne({ where: { id, tenantId, userId } });
  }

  /** The user's conversations, newest first; with `turn`, only those with a message of that request or trace. */
  async listConversations(
    tenantId: string,
    userId: string,
    limit: number,
    offset: number,
    turn: Pick<ChatTurnIds, 'request_id' | 'trace_id'> = {},
  ): Promise<{ items: ChatConversationEntity[]; total: number }> {
    const query = this.dataSource
      .getRepository(ChatConversationEntity)
      .createQueryBuilder('c')
      .where('c.tenant_id = :tenantId AND c.user_id = :userId', { tenantId, userId });
    const filters = [
      turn.request_id ? 'm.request_id = :requestId' : null,
      turn.trace_id ? 'm.trace_id = :traceId' : null,
    ].filter(Boolean);
    if (filters.length)
      query.andWhere(
        `EXISTS (SELECT 1 FROM chat_messages m WHERE m.conversation_id = c.id AND ${filters.join(' AND ')})`,
        { requestId: turn.request_id, traceId: turn.trace_id },
      );
    const [items, total] = await query
      .orderBy('c.updated_at', 'DESC')
      .addOrderBy('c.id', 'ASC')
      .take(limit)
      .skip(offset)
      .getManyAndCount();
    return { items, total };
  }

  async deleteConversation(tenantId: string, userId: string, id: string): Promise<boolean> {
    if (!UUID.test(id)) return false;
    const result = await this.dataSource
      .getRepository(ChatConversationEntity)
      .delete({ id, tenantId, userId });
    return (result.affected ?? 0) > 0;
  }

  /** The last `count` messages, oldest first. */
  async recentMessages(
    tenantId: string,
    conversationId: string,
    count: number,
  ): Promise<ChatMessageEntity[]> {
    const rows = await this.dataSource.getRepository(ChatMessageEntity).find({
      where: { tenantId, conversationId },
      order: { position: 'DESC' },
      take: count,
    });
    return rows.reverse();
  }

  allMessages(tenantId: string, conversationId: string): Promise<ChatMessageEntity[]> {
    return this.dataSource
      .getRepository(ChatMessageEntity)
      .find({ where: { tenantId, conversationId }, order: { position: 'ASC' } });
  }

  /** Appends a message at the next position; a concurrent append to the same conversation retries. */
  async appendMessage(
    tenantId: string,
    conversationId: string,
    role: ChatRole,
    content: string,
    metadata: Record<string, unknown> | null,
    ids: ChatTurnIds = {},
  ): Promise<ChatMessageEntity> {
    for (let attempt = 1; ; attempt++) {
      try {
        const rows: Array<{ id: string }> = await this.dataSource.query(
          `INSERT INTO chat_messages
             (tenant_id, conversation_id, position, role, content, metadata, request_id, trace_id, key_id, caller)
           SELECT $1, $2, COALESCE(MAX(position) + 1, 0), $3, $4, $5::jsonb, $6, $7, $8, $9
             FROM chat_messages WHERE conversation_id = $2
           RETURNING id`,
          [
            tenantId,
            conversationId,
            role,
            content,
            metadata === null ? null : JSON.stringify(metadata),
            ids.request_id ?? null,
            ids.trace_id ?? null,
            ids.key_id ?? null,
            ids.caller ?? null,
          ],
        );
        await this.dataSource
          .getRepository(ChatConversationEntity)
          .update({ id: conversationId, tenantId }, { updatedAt: () => 'now()' });
        return this.dataSource.getRepository(ChatMessageEntity).findOneOrFail({ where: { id: rows[0].id } });
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= POSITION_RETRIES) throw error;
      }
    }
  }
}
