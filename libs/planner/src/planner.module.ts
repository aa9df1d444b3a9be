import { Module, OnModuleInit } from '@nestjs/common';
import { ConfigFeatureModule, HealthRegistry } from '@app/platform';
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
import { PlannerConfig } from './planner.config';
import { PlannerOptions } from './planner-options';
import { PlannerService } from './planner.service';

export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';

export function createLlmClient(config: PlannerConfig): LlmClient {
  const baseUrl = config.LLM_BASE_URL;
  if (!baseUrl) return new UnconfiguredLlmClient();
  return new OpenAiLlmClient({
    baseUrl,
    apiKey: config.LLM_API_KEY,
    model: config.LLM_MODEL ?? DEFAULT_LLM_MODEL,
    temperature: config.LLM_TEMPERATURE,
    maxTokens: config.LLM_MAX_TOKENS,
    timeoutMs: config.LLM_TIMEOUT_MS,
    maxRetries: config.LLM_MAX_RETRIES,
    retryBaseDelayMs: config.LLM_RETRY_BASE_DELAY_MS,
  });
}

@Module({
  imports: [
    ConfigFeatureModule.register('planner', PlannerConfig),
    ToolsModule,
    ToolKindsModule,
    OpsModule,
    AssetRegistryModule,
    DocumentsModule,
  ],
  controllers: [PlannerController],
  providers: [
    PlanningKnowledgeHealth,
    { provide: LlmClient, useFactory: createLlmClient, inject: [PlannerConfig] },
    { provide: PlanningKnowledge, useClass: AssetPlanningKnowledge },
    { provide: DocumentMatcher, useClass: DocumentSearchMatcher },
    { provide: PlanExecutor, useClass: StagePlanExecutor },
    {
      provide: PlannerOptions,
      useFactory: (config: PlannerConfig): PlannerOptions => ({
        tokenBudget: config.PLANNER_TOKEN_BUDGET,
        maxLimit: config.PLANNER_MAX_LIMIT,
        maxSteps: config.PLANNER_MAX_STEPS,
        executionTimeoutMs: config.PLANNER_EXECUTION_TIMEOUT_MS,
      }),
      inject: [PlannerConfig],
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
