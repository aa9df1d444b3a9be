import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig, HealthRegistry } from '@app/platform';
import { PlanningKnowledgeHealth } from './planning-knowledge-health';
import { DocumentMatcher } from './fallback/document-signal';
import { DocumentSearchMatcher } from './fallback/document-search.matcher';
import { AssetRegistryModule } from '@app/asset-registry';
import { DocumentsModule } from '@app/documents';
import { OpsModule } from '@app/ops';
import { ToolRegistry, ToolsModule } from '@app/tools';
import { AgentController } from './agent/agent.controller';
import { AgentFallbackService } from './agent/agent-fallback.service';
import { AgentOptions } from './agent/agent-options';
import { BlogToolsPublisher } from './agent/blog/blog-tools.publisher';
import { ToolCallingAgentService } from './agent/tool-calling-agent.service';
import { AnswerWriter } from './answer/answer-writer';
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
import { AskService } from './ask.service';
import { PlanExecutor } from './execution/plan-executor';
import { StagePlanExecutor } from './execution/stage-plan.executor';
import { PlannerController } from './http/planner.controller';
import { AssetPlanningKnowledge } from './knowledge/asset-planning-knowledge';
import { PlanningKnowledge } from './knowledge/planning-knowledge';
import { LlmClient } from './llm/llm-client';
import { OpenAiLlmClient } from './llm/openai-llm.client';
import { UnconfiguredLlmClient } from './llm/unconfigured-llm.client';
import { PlannerOptions } from './planner-options';
import { PlannerService } from './planner.service';

export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';

export function createLlmClient(config: AppConfig): LlmClient {
  const baseUrl = config.get('LLM_BASE_URL');
  if (!baseUrl) return new UnconfiguredLlmClient();
  return new OpenAiLlmClient({
    baseUrl,
    apiKey: config.get('LLM_API_KEY'),
    model: config.get('LLM_MODEL') ?? DEFAULT_LLM_MODEL,
    temperature: config.get('LLM_TEMPERATURE'),
    maxTokens: config.get('LLM_MAX_TOKENS'),
    timeoutMs: config.get('LLM_TIMEOUT_MS'),
    maxRetries: config.get('LLM_MAX_RETRIES'),
    retryBaseDelayMs: config.get('LLM_RETRY_BASE_DELAY_MS'),
  });
}

@Module({
  imports: [
    ToolsModule,
    OpsModule,
    AssetRegistryModule,
    DocumentsModule,
    TypeOrmModule.forFeature([ChatConversationEntity, ChatMessageEntity]),
  ],
  controllers: [PlannerController, AgentController, ChatController],
  providers: [
    PlanningKnowledgeHealth,
    { provide: LlmClient, useFactory: createLlmClient, inject: [AppConfig] },
    { provide: PlanningKnowledge, useClass: AssetPlanningKnowledge },
    { provide: DocumentMatcher, useClass: DocumentSearchMatcher },
    { provide: PlanExecutor, useClass: StagePlanExecutor },
    {
      provide: PlannerOptions,
      useFactory: (config: AppConfig): PlannerOptions => ({
        tokenBudget: config.get('PLANNER_TOKEN_BUDGET'),
        maxLimit: config.get('PLANNER_MAX_LIMIT'),
        maxSteps: config.get('PLANNER_MAX_STEPS'),
        executionTimeoutMs: config.get('PLANNER_EXECUTION_TIMEOUT_MS'),
      }),
      inject: [AppConfig],
    },
    {
      provide: AgentOptions,
      useFactory: (config: AppConfig): AgentOptions => ({
        timeoutMs: config.get('AGENT_TIMEOUT_MS'),
        toolResultChars: config.get('AGENT_TOOL_RESULT_CHARS'),
      }),
      inject: [AppConfig],
    },
    PlannerService,
    AskService,
    AnswerWriter,
    AgentFallbackService,
    ToolCallingAgentService,
    BlogToolsPublisher,
    {
      provide: ChatOptions,
      useFactory: (config: AppConfig): ChatOptions => ({
        historyTurns: config.get('CHAT_HISTORY_TURNS'),
        maxToolCalls: config.get('CHAT_MAX_TOOL_CALLS'),
        topK: config.get('CHAT_TOP_K'),
        minRelevance: config.get('CHAT_MIN_RELEVANCE'),
        retryBaseDelayMs: config.get('CHAT_RETRY_BASE_DELAY_MS'),
        timeoutMs: config.get('AGENT_TIMEOUT_MS'),
        retries: {
          router: config.get('CHAT_ROUTER_RETRIES'),
          grader: config.get('CHAT_GRADER_RETRIES'),
          rewriter: config.get('CHAT_REWRITER_RETRIES'),
          answer: config.get('CHAT_ANSWER_RETRIES'),
          search: config.get('CHAT_SEARCH_RETRIES'),
        },
        onSearchError: config.get('CHAT_ON_SEARCH_ERROR'),
      }),
      inject: [AppConfig],
    },
    {
      provide: WebSearchProvider,
      useFactory: (config: AppConfig, registry: ToolRegistry): WebSearchProvider => {
        const mcpTool = config.get('CHAT_WEB_SEARCH_MCP_TOOL');
        if (mcpTool) return new McpWebSearchProvider(registry, mcpTool);
        const url = config.get('WEB_SEARCH_URL');
        return url ? new SearxngWebSearchProvider(url, 10_000) : new DisabledWebSearchProvider();
      },
      inject: [AppConfig, ToolRegistry],
    },
    DocumentSearchRetriever,
    {
      provide: DocumentRetriever,
      useFactory: (config: AppConfig, registry: ToolRegistry, local: DocumentSearchRetriever) => {
        const mcpTool = config.get('CHAT_INTERNAL_SEARCH_MCP_TOOL');
        return mcpTool ? new McpDocumentRetriever(registry, mcpTool) : local;
      },
      inject: [AppConfig, ToolRegistry, DocumentSearchRetriever],
    },
    ChatRepository,
    ChatRouterService,
    ChatJudgesService,
    ChatSearchAgentService,
    ChatService,
  ],
  exports: [
    LlmClient,
    PlanningKnowledge,
    PlanExecutor,
    PlannerService,
    AskService,
    ToolCallingAgentService,
    BlogToolsPublisher,
    ChatService,
    WebSearchProvider,
    DocumentRetriever,
  ],
})
export class PlannerModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly llm: LlmClient,
    private readonly web: WebSearchProvider,
    private readonly knowledgeHealth: PlanningKnowledgeHealth,
  ) {}

  onModuleInit(): void {
    this.health.register('llm', () => this.llm.health(), { critical: false });
    this.health.register('planning_knowledge', (viewer) => this.knowledgeHealth.check(viewer), {
      critical: false,
    });
    this.health.register('web_search', () => this.web.health(), { critical: false });
  }
}
