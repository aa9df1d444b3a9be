import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  StreamableFile,
} from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import {
  CurrentPrincipal,
  Principal,
  RequestContext,
  RequireRole,
  streamRun,
  wantsEventStream,
} from '@app/platform';
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
    request_id: m.requestId,
    trace_id: m.traceId,
    key_id: m.keyId,
    caller: m.caller,
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
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOperation({
    summary: 'Ask a question (agentic RAG: route, search, grade, rewrite, answer with citations)',
    description:
      'With `Accept: text/event-stream` the turn is streamed as server-sent events: `run.started` (conversation and turn ids), `step.started` (route, search, grade, rewrite, answer), `tool.result` (each search), `answer.delta` (the answer text), then `done` with this JSON body (or `error`). Disconnecting stops the remaining steps.',
  })
  async ask(
    @Body() body: ChatRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ChatResult | StreamableFile> {
    const context = RequestContext.current();
    const request = {
      tenantId: principal.tenantId,
      userId: principal.userId,
      message: body.message.trim(),
      conversationId: body.conversation_id,
      model: body.model,
      requestId: context?.requestId,
      traceId: context?.traceId,
      keyId: principal.keyId,
      caller: 'api' as const,
    };
    if (wantsEventStream(accept)) return streamRun(response, (observer) => this.chat.chat(request, observer));
    return this.chat.chat(request);
  }

  @Get('conversations')
  @ApiOperation({
    summary:
      "The caller's conversations, most recent first (request_id / trace_id: those with a turn of that request or trace)",
  })
  async list(@Query() query: ConversationListQueryDto, @CurrentPrincipal() principal: Principal) {
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await this.chat.listConversations(principal.tenantId, principal.userId, limit, offset, {
      request_id: query.request_id,
      trace_id: query.trace_id,
    });
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
