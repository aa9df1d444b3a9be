import { Module, OnModuleInit } from '@nestjs/common';
import { AppConfig, HealthRegistry } from '@app/platform';
import { PlanningKnowledgeHealth } from './planning-knowledge-health';
import { DocumentMatcher } from './fallback/document-signal';
import { DocumentSearchMatcher } from './fallback/document-search.matcher';
import { AssetRegistryModule, AssetTypeRegistry } from '@app/asset-registry';
import { DocumentsModule } from '@app/documents';
import { OpsModule } from '@app/ops';
import { ToolKindsModule, ToolsModule } from '@app/tools';
import { AnswerWriter } from './answer/answer-writer';
import { AskService } from './ask.service';
import { PlanExecutor } from './execution/plan-executor';
import { StagePlanExecutor } from './execution/stage-plan.executor';
import { PlannerController } from './http/planner.controller';
import { AssetPlanningKnowledge } from './knowledge/asset-planning-knowledge';
import { PlanningKnowledge } from './knowledge/planning-knowledge';
import { MAPPING_ASSET_TYPE, PROMPT_ASSET_TYPE, RESOLVER_ASSET_TYPE } from './knowledge/planner-asset-types';
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
  imports: [ToolsModule, ToolKindsModule, OpsModule, AssetRegistryModule, DocumentsModule],
  controllers: [PlannerController],
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
    PlannerService,
    AskService,
    AnswerWriter,
  ],
  exports: [LlmClient, PlanningKnowledge, PlanExecutor, PlannerService, AskService, PlannerOptions],
})
export class PlannerModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly llm: LlmClient,
    private readonly knowledgeHealth: PlanningKnowledgeHealth,
    private readonly assetTypes: AssetTypeRegistry,
  ) {}

  /** Also the asset types of the planning knowledge this lib reads: prompts, mappings and resolvers. */
  onModuleInit(): void {
    this.assetTypes.register(PROMPT_ASSET_TYPE);
    this.assetTypes.register(MAPPING_ASSET_TYPE);
    this.assetTypes.register(RESOLVER_ASSET_TYPE);
    this.health.register('llm', () => this.llm.health(), { critical: false });
    this.health.register('planning_knowledge', (viewer) => this.knowledgeHealth.check(viewer), {
      critical: false,
    });
  }
}
