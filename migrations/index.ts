import type { MigrationInterface } from 'typeorm';
import { CreateTenantsAndApiKeys1795313625411 } from './1795313625411-CreateTenantsAndApiKeys';
import { CreateDocuments1795314812243 } from './1795314812243-CreateDocuments';
import { AddDocumentSearchIndexes1795314812244 } from './1795314812244-AddDocumentSearchIndexes';
import { CreateAssetRegistry1795314934794 } from './1795314934794-CreateAssetRegistry';
import { CreateOpsDataAndStageRuns1795315147164 } from './1795315147164-CreateOpsDataAndStageRuns';
import { AllowServiceApiKeyRole1795316249719 } from './1795316249719-AllowServiceApiKeyRole';
import { CreateChatConversations1795316928696 } from './1795316928696-CreateChatConversations';
import { AddKeywordStatistics1795317411778 } from './1795317411778-AddKeywordStatistics';
import { IndexChunkSourceHash1795317956897 } from './1795317956897-IndexChunkSourceHash';
import { KeywordIndexWithoutPendingList1795318600000 } from './1795318600000-KeywordIndexWithoutPendingList';
import { AddDemoLoadProgress1795318650000 } from './1795318650000-AddDemoLoadProgress';
import { CreateTenantSecrets1795319000000 } from './1795319000000-CreateTenantSecrets';
import { AddCancelledDocumentJobs1795605946554 } from './1795605946554-AddCancelledDocumentJobs';
import { CreateToolPendingActions1795606677666 } from './1795606677666-CreateToolPendingActions';
import { EnableRowLevelSecurity1795607000000 } from './1795607000000-EnableRowLevelSecurity';
import { CreateTenantChangeGenerations1795608000000 } from './1795608000000-CreateTenantChangeGenerations';
import { CreateCodeIntelligence1795700000000 } from './1795700000000-CreateCodeIntelligence';
import { StageOutputsAndStageAssets1795700000001 } from './1795700000001-StageOutputsAndStageAssets';
import { AddDocumentFailureHandling1795700100000 } from './1795700100000-AddDocumentFailureHandling';
import { AddToolSourceRef1795700241917 } from './1795700241917-AddToolSourceRef';
import { AddJobClaimedAt1795700300000 } from './1795700300000-AddJobClaimedAt';
import { CreateScheduledJobRuns1795710000000 } from './1795710000000-CreateScheduledJobRuns';
import { SeparateSystemAndSqlToolRoles1795800000000 } from './1795800000000-SeparateSystemAndSqlToolRoles';
import { AddToolPlanningHints1795800000500 } from './1795800000500-AddToolPlanningHints';
import { CreateAgentRuns1795900000000 } from './1795900000000-CreateAgentRuns';
import { AddStageRunCaller1795900000001 } from './1795900000001-AddStageRunCaller';
import { AddChatMessageIds1795900000002 } from './1795900000002-AddChatMessageIds';
import { AddBulkIngestionSegments1796100000000 } from './1796100000000-AddBulkIngestionSegments';
import { CreateAgentRunDeliveries1796200000000 } from './1796200000000-CreateAgentRunDeliveries';
import { HalfvecEmbeddingIndexes1796300000000 } from './1796300000000-HalfvecEmbeddingIndexes';
import { UnifyJobQueueColumns1796400000000 } from './1796400000000-UnifyJobQueueColumns';
import { OpenAssetTypes1796410000000 } from './1796410000000-OpenAssetTypes';
import { BulkLoadIndexUpkeep1796420000000 } from './1796420000000-BulkLoadIndexUpkeep';

type MigrationClass = new () => MigrationInterface;

/** Every migration, oldest first. Listed explicitly so the build and the tests load the same set. */
export const MIGRATIONS: MigrationClass[] = [
  CreateTenantsAndApiKeys1795313625411,
  CreateDocuments1795314812243,
  AddDocumentSearchIndexes1795314812244,
  CreateAssetRegistry1795314934794,
  CreateOpsDataAndStageRuns1795315147164,
  AllowServiceApiKeyRole1795316249719,
  CreateChatConversations1795316928696,
  AddKeywordStatistics1795317411778,
  IndexChunkSourceHash1795317956897,
  KeywordIndexWithoutPendingList1795318600000,
  AddDemoLoadProgress1795318650000,
  CreateTenantSecrets1795319000000,
  AddCancelledDocumentJobs1795605946554,
  CreateToolPendingActions1795606677666,
  EnableRowLevelSecurity1795607000000,
  CreateTenantChangeGenerations1795608000000,
  CreateCodeIntelligence1795700000000,
  StageOutputsAndStageAssets1795700000001,
  AddDocumentFailureHandling1795700100000,
  AddToolSourceRef1795700241917,
  AddJobClaimedAt1795700300000,
  CreateScheduledJobRuns1795710000000,
  SeparateSystemAndSqlToolRoles1795800000000,
  AddToolPlanningHints1795800000500,
  CreateAgentRuns1795900000000,
  AddStageRunCaller1795900000001,
  AddChatMessageIds1795900000002,
  AddBulkIngestionSegments1796100000000,
  CreateAgentRunDeliveries1796200000000,
  HalfvecEmbeddingIndexes1796300000000,
  UnifyJobQueueColumns1796400000000,
  OpenAssetTypes1796410000000,
  BulkLoadIndexUpkeep1796420000000,
];

/** The database roles row-level security is written for (see docs/notes/rls.md). */
export { APP_ROLE, SQL_TOOL_ROLE } from './1795607000000-EnableRowLevelSecurity';
export { SYSTEM_ROLE } from './1795800000000-SeparateSystemAndSqlToolRoles';
/** The embedding indexes' definition and its rebuild (test/medium/documents/vector-index.spec.ts). */
export {
  HNSW_EF_CONSTRUCTION,
  HNSW_M,
  halfvecIndexesDown,
  halfvecIndexesUp,
} from './1796300000000-HalfvecEmbeddingIndexes';
/** The one job queue's columns (test/medium/platform/job-queue-migration.spec.ts). */
export { unifyJobQueueColumnsDown, unifyJobQueueColumnsUp } from './1796400000000-UnifyJobQueueColumns';
