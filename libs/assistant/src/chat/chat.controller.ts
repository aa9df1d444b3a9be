import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireRole } from '@app/platform';
import { ChatRequestDto, ConversationListQueryDto } from './chat.dto';
import type { ChatResult } from './chat.types';
import { ChatService } from './chat.service';
import type { ChatConversationEntity } from './persistence/chat-conversation.entity';
import type { ChatMessageEntity } from './persistence/chat-message.entity';

function conversationView(c: ChatConversationEntity) {
  return {
    id: c.id,
    title: c.title,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

function messageView(m: ChatMessageEntity) {
  return {
    id: m.id,
    position: m.position,
    role: m.role,
    content: m.content,
    ...(m.metadata ?? {}),
    created_at: m.createdAt.toISOString(),
  };
}

/** Readers may chat: the chat only searches, it runs no other tool. Conversations are the key user's own. */
@ApiTags('chat')
@ApiBearerAuth()
@RequireRole('reader')
@Controller('api/chat')
export class ChatController {
  constructor(private readonly chat: ChatService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Ask a question (agentic RAG: route, search, grade, rewrite, answer with citations)',
  })
  ask(@Body() body: ChatRequestDto, @CurrentPrincipal() principal: Principal): Promise<ChatResult> {
    return this.chat.chat({
      tenantId: principal.tenantId,
      userId: principal.userId,
      message: body.message.trim(),
      conversationId: body.conversation_id,
      model: body.model,
    });
  }

  @Get('conversations')
  @ApiOperation({ summary: "The caller's conversations, most recent first" })
  async list(@Query() query: ConversationListQueryDto, @CurrentPrincipal() principal: Principal) {
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await this.chat.listConversations(principal.tenantId, principal.userId, limit, offset);
    return { items: page.items.map(conversationView), total: page.total, limit, offset };
  }

  @Get('conversations/:id')
  @ApiOperation({ summary: 'A conversation with its messages (404 for anyone but its user)' })
  async get(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    const { conversation, messages } = await this.chat.conversation(principal.tenantId, principal.userId, id);
    return { ...conversationView(conversation), messages: messages.map(messageView) };
  }

  @Delete('conversations/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a conversation and its messages' })
  async remove(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.chat.deleteConversation(principal.tenantId, principal.userId, id);
  }
}
