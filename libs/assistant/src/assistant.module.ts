import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigFeatureModule, HealthRegistry } from '@app/platform';
import { AssetRegistryModule } from '@app/asset-registry';
import { DocumentsModule } from '@app/documents';
import { PlannerModule } from '@app/planner';
import { HttpToolsModule, ToolRegistry, ToolsModule } from '@app/tools';
import { AgentController } from './agent/agent.controller';
import { AgentFallbackService } from './agent/agent-fallback.service';
import { AgentOptions } from './agent/agent-options';
import { BlogToolsPublisher } from './agent/blog/blog-tools.publisher';
import { ToolCallingAgentService } from './agent/tool-calling-agent.service';
import { AgentRunEntity } from './agent/runs/agent-run.entity';
import { AgentRunJanitor } from './agent/runs/agent-run.janitor';
import { AgentRunRepository } from './agent/runs/agent-run.repository';
import { AgentRunDeliveryEntity } from './agent/webhooks/agent-run-delivery.entity';
import { AgentRunDeliveryRepository } from './agent/webhooks/agent-run-delivery.repository';
import { RunWebhookService } from './agent/webhooks/run-webhook.service';
import { ChatController } from './chat/chat.controller';
import { ChatJudgesService } from './chat/chat-judges.service';
import { ChatOptions } from './chat/chat-options';
import { ChatRouterService } from './chat/chat-router.service';
import { ChatSearchAgentService } from './chat/chat-search-agent.service';
import { ChatService } from './chat/chat.service';
import { ChatConversationEntity } from './chat/persistence/chat-conversation.entity';
import { ChatMessageEntity } from './chat/persistence/chat-message.entity';
import { ChatRepository } from './chat/persistence/chat.repository';
import { DocumentRetriever } from './chat/search/document-retriever';
import { DocumentSearchRetriever } from './chat/search/document-search.retriever';
import { McpDocumentRetriever, McpWebSearchProvider } from './chat/search/mcp-search';
import {
  DisabledWebSearchProvider,
  SearxngWebSearchProvider,
  WebSearchProvider,
} from './chat/search/web-search.provider';
import { AssistantConfig } from './assistant.config';

/**
 * The assistant products on top of the planner: the tool-calling agent (`POST /v1/llm/execute`,
 * with the planner's deterministic plan as its fallback without a model) and the RAG chat
 * (`/v1/chat`, which uses only the planner's LLM client). The chat's conversations are its entities.
 */
@Module({
  imports: [
    ConfigFeatureModule.register('assistant', AssistantConfig),
    PlannerModule,
    ToolsModule,
    // The egress-checked outbound client of the http tools, which run webhooks are sent through.
    HttpToolsModule,
    AssetRegistryModule,
    DocumentsModule,
    TypeOrmModule.forFeature([
      ChatConversationEntity,
      ChatMessageEntity,
      AgentRunEntity,
      AgentRunDeliveryEntity,
    ]),
  ],
  controllers: [AgentController, ChatController],
  providers: [
    {
      provide: AgentOptions,
      useFactory: (config: AssistantConfig): AgentOptions => ({
        timeoutMs: config.AGENT_TIMEOUT_MS,
        toolResultChars: config.AGENT_TOOL_RESULT_CHARS,
      }),
      inject: [AssistantConfig],
    },
    AgentFallbackService,
    AgentRunRepository,
    AgentRunDeliveryRepository,
    RunWebhookService,
    ToolCallingAgentService,
    AgentRunJanitor,
    BlogToolsPublisher,
    {
      provide: ChatOptions,
      useFactory: (config: AssistantConfig): ChatOptions => ({
        historyTurns: config.CHAT_HISTORY_TURNS,
        maxToolCalls: config.CHAT_MAX_TOOL_CALLS,
        topK: config.CHAT_TOP_K,
        minRelevance: config.CHAT_MIN_RELEVANCE,
        minKeywordRelevance: config.CHAT_MIN_KEYWORD_RELEVANCE,
        retryBaseDelayMs: config.CHAT_RETRY_BASE_DELAY_MS,
        timeoutMs: config.AGENT_TIMEOUT_MS,
        retries: {
          router: config.CHAT_ROUTER_RETRIES,
          grader: config.CHAT_GRADER_RETRIES,
          rewriter: config.CHAT_REWRITER_RETRIES,
          answer: config.CHAT_ANSWER_RETRIES,
          search: config.CHAT_SEARCH_RETRIES,
        },
        onSearchError: config.CHAT_ON_SEARCH_ERROR,
      }),
      inject: [AssistantConfig],
    },
    {
      provide: WebSearchProvider,
      useFactory: (config: AssistantConfig, registry: ToolRegistry): WebSearchProvider => {
        const mcpTool = config.CHAT_WEB_SEARCH_MCP_TOOL;
        if (mcpTool) return new McpWebSearchProvider(registry, mcpTool);
        const url = config.WEB_SEARCH_URL;
        return url ? new SearxngWebSearchProvider(url, 10_000) : new DisabledWebSearchProvider();
      },
      inject: [AssistantConfig, ToolRegistry],
    },
    DocumentSearchRetriever,
    {
      provide: DocumentRetriever,
      useFactory: (config: AssistantConfig, registry: ToolRegistry, local: DocumentSearchRetriever) => {
        const mcpTool = config.CHAT_INTERNAL_SEARCH_MCP_TOOL;
        return mcpTool ? new McpDocumentRetriever(registry, mcpTool) : local;
      },
      inject: [AssistantConfig, ToolRegistry, DocumentSearchRetriever],
    },
    ChatRepository,
    ChatRouterService,
    ChatJudgesService,
    ChatSearchAgentService,
    ChatService,
  ],
  exports: [
    ToolCallingAgentService,
    AgentRunJanitor,
    RunWebhookService,
    BlogToolsPublisher,
    ChatService,
    WebSearchProvider,
    DocumentRetriever,
  ],
})
export class AssistantModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly web: WebSearchProvider,
  ) {}

  onModuleInit(): void {
    this.health.register('web_search', () => this.web.health(), { critical: false });
  }
}
