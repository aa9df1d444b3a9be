import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigFeatureModule } from '@app/platform';
import { DocumentsConfig } from './documents.config';
import { EmbeddingProviders } from './embedding/embedding-provider';
import { ConfiguredEmbeddingProviders } from './embedding/embedding-providers';
import { DocumentChunkEntity } from './entities/document-chunk.entity';
import { DocumentCorpusEntity } from './entities/document-corpus.entity';
import { DocumentTermStatEntity } from './entities/document-term-stat.entity';
import { DocumentJobEntity } from './entities/document-job.entity';
import { DocumentEntity } from './entities/document.entity';
import { DocumentUploadInterceptor } from './http/document-upload.interceptor';
import { DocumentsController } from './http/documents.controller';
import { ChunksRepository } from './ingestion/chunks.repository';
import { DocumentIngestionService } from './ingestion/document-ingestion.service';
import { DocumentMaintenanceService } from './ingestion/document-maintenance.service';
import { DocumentProcessor } from './ingestion/document-processor.service';
import { BulkIngestionService } from './ingestion/bulk-ingestion.service';
import { BulkSegmentsRepository } from './ingestion/bulk-segments.repository';
import { DocumentWorker } from './ingestion/document-worker.service';
import { DocumentsRepository } from './ingestion/documents.repository';
import { DocumentsScheduler } from './ingestion/documents.scheduler';
import { IngestionStageClock } from './ingestion/ingestion-stage-clock.service';
import { JobsRepository } from './ingestion/jobs.repository';
import { DocumentParseThread } from './parsing/parse-thread';
import { DocumentSearchService } from './search/document-search.service';
import { SearchCacheVersionsService } from './search/search-cache-versions.service';
import { SearchRepository } from './search/search.repository';
import { TermStatsRepository } from './search/term-stats.repository';

@Module({
  imports: [
    ConfigFeatureModule.register('documents', DocumentsConfig),
    TypeOrmModule.forFeature([
      DocumentEntity,
      DocumentChunkEntity,
      DocumentJobEntity,
      DocumentCorpusEntity,
      DocumentTermStatEntity,
    ]),
  ],
  controllers: [DocumentsController],
  providers: [
    {
      provide: EmbeddingProviders,
      inject: [DocumentsConfig],
      useFactory: (config: DocumentsConfig) => new ConfiguredEmbeddingProviders(config),
    },
    DocumentsRepository,
    ChunksRepository,
    JobsRepository,
    SearchRepository,
    TermStatsRepository,
    IngestionStageClock,
    DocumentParseThread,
    DocumentProcessor,
    BulkIngestionService,
    BulkSegmentsRepository,
    DocumentWorker,
    DocumentIngestionService,
    DocumentMaintenanceService,
    DocumentsScheduler,
    DocumentSearchService,
    SearchCacheVersionsService,
    DocumentUploadInterceptor,
  ],
  exports: [DocumentIngestionService, DocumentSearchService, DocumentMaintenanceService, EmbeddingProviders],
})
export class DocumentsModule {}
