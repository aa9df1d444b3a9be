export { DocumentsModule } from './documents.module';
export { DocumentsConfig } from './documents.config';
export { DocumentIngestionService, type IngestResult } from './ingestion/document-ingestion.service';
export {
  INGESTION_STAGES,
  type IngestionStage,
  type IngestionStageTimings,
} from './ingestion/ingestion-stage-clock.service';
export { DocumentSearchService } from './search/document-search.service';
export { type SearchPlan, type SearchRow } from './search/search.repository';
export { DocumentMaintenanceService } from './ingestion/document-maintenance.service';
export { EmbeddingProvider, EmbeddingProviders } from './embedding/embedding-provider';
export { DocumentsException, DocumentsExceptionCode } from './documents.exception';
export { stripHangulSuffix, tokenize, toIndexText } from './text/search-text.util';
export { parseDocument } from './parsing/document-parser';
export { DocumentParseThread, THREADED_FORMATS, THREADED_MIN_BYTES } from './parsing/parse-thread';
export { DEFAULT_PARSE_BUDGET, type ParseBudget } from './parsing/parse-budget';
export {
  CHUNK_TYPES,
  DOCUMENT_FORMATS,
  DOCUMENT_STATUSES,
  FUSION_METHODS,
  SEARCH_TYPES,
  type BranchHit,
  type DeadLetterJobView,
  type DeadLetterPage,
  type DocumentRetryOutcome,
  type ChunkType,
  type DocumentChunkView,
  type DocumentErrorDetails,
  type DocumentFormat,
  type DocumentInput,
  type DocumentListQuery,
  type DocumentMetadata,
  type DocumentPage,
  type DocumentSearchFilters,
  type DocumentSearchRequest,
  type DocumentSearchResponse,
  type DocumentSearchResult,
  type DocumentStatus,
  type DocumentView,
  type FusionMethod,
  type SearchType,
} from './documents.types';
