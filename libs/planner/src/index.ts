export { PlannerModule, createLlmClient, DEFAULT_LLM_MODEL } from './planner.module';
export { PlannerConfig } from './planner.config';
export { PlannerService, type PlanRequest } from './planner.service';
export { KNOWLEDGE_INCOMPLETE_PREFIX } from './planner.service';
export { analyseQuestion } from './fallback/question-analysis';
export {
  DocumentMatcher,
  InMemoryDocumentMatcher,
  documentEvidence,
  documentTerms,
  DOCUMENT_MATCH_PASSAGES,
} from './fallback/document-signal';
export { AskService, type AskRequest, type AskResult } from './ask.service';
export { PlannerOptions } from './planner-options';
export {
  LlmClient,
  type LlmChatRequest,
  type LlmChatResponse,
  type LlmMessage,
  type LlmResponseFormat,
  type LlmToolCall,
  type LlmToolSpec,
  type LlmUsage,
} from './llm/llm-client';
export { OpenAiLlmClient, type OpenAiLlmOptions } from './llm/openai-llm.client';
export { UnconfiguredLlmClient } from './llm/unconfigured-llm.client';
export {
  PlanningKnowledge,
  InMemoryPlanningKnowledge,
  type PlanningKnowledgeEntry,
  type VersionedAsset,
} from './knowledge/planning-knowledge';
export {
  AssetPlanningKnowledge,
  catalogForSource,
  PLANNER_ASSET_NAMES,
} from './knowledge/asset-planning-knowledge';
export { loadSourceCatalogs, type SourceCatalog } from './knowledge/source-catalogs';
export { CatalogIndex } from './knowledge/catalog-index';
export {
  contentTerms,
  estimateTokens,
  isKorean,
  normalizeText,
  queryHasTerm,
} from './knowledge/text-match.util';
export { tracedLlmCall, type LlmCallRecord } from './llm/traced-llm-call';
export { templateAnswer } from './answer/template-answer.util';
export { PlanExecutor, type PlanRunOptions } from './execution/plan-executor';
export { StagePlanExecutor } from './execution/stage-plan.executor';
export { toStageReferences } from './plan/plan-references';
export {
  FallbackPlanner,
  splitClauses,
  TOOL_OUTPUT_NOUN,
  type FallbackPlannerInput,
  type FallbackPlanResult,
  type FallbackTrace,
} from './fallback/fallback-planner';
export { explainPlan, type ExplainPlanInput } from './explain/plan-explainer';
export {
  contentKnowledgeVersion,
  knowledgeVersion,
  type KnowledgeVersionParts,
} from './knowledge/knowledge-version';
export { PlanValidator, type PlanValidationContext } from './plan/plan-validator';
export type { PlanExplanation } from './plan/plan.types';
export { PromptBuilder, DEFAULT_PLANNER_SYSTEM_PROMPT, type BuiltPrompt } from './prompt/prompt-builder';
export { summarizeCatalog, type CatalogSummary } from './prompt/catalog-summary';
export { planJsonSchema } from './plan/plan-json-schema';
export { CATALOG_COLUMN_KEY, CATALOG_TABLE_KEY } from './plan/schema-introspection.util';
export { LlmException, PlannerException, PlannerExceptionCode } from './planner.exception';
export type * from './plan/plan.types';
export { inputQuestion, neededInputs, runnableSteps, type NeededInput } from './plan/needs-input';
export { TRAINING_WARNING_PREFIX } from './fallback/fallback-planner';
export { MAPPING_ASSET_TYPE, PROMPT_ASSET_TYPE, RESOLVER_ASSET_TYPE } from './knowledge/planner-asset-types';
