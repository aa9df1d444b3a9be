import { Module } from '@nestjs/common';
import { DocumentsModule } from '@app/documents';
import { ConfigFeatureModule } from '@app/platform';
import { CodeConfig } from './code.config';
import { CodeDiffWorker } from './diff/code-diff.worker';
import { CodeDiffsRepository } from './diff/code-diffs.repository';
import { DiffApplicationService } from './diff/diff-application.service';
import { CodeGraphStore } from './graph/code-graph.store';
import { PostgresCodeGraphStore } from './graph/postgres-code-graph.store';
import { CodeController } from './http/code.controller';
import { DiffsController } from './http/diffs.controller';
import { CodeChunksService } from './indexing/code-chunks.service';
import { CodeIndexerService } from './indexing/code-indexer.service';
import { CodeQueryService } from './search/code-query.service';
import { CodeFilesRepository } from './store/code-files.repository';
import { CodeRepositoriesRepository } from './store/code-repositories.repository';
import { CodeGraphTool } from './tools/code-graph.tool';
import { SearchGraphDbTool } from './tools/search-graph-db.tool';
import { SearchVectorDbTool } from './tools/search-vector-db.tool';

/**
 * Code intelligence: diffs from a backend are applied to stored file texts and queued (durable
 * before acknowledged); the worker parses them with tree-sitter into a code graph (a port with a
 * PostgreSQL implementation) and search chunks in the tenant's document store; tools
 * (`search_vector_db`, `search_graph_db`, `code_graph`) and HTTP read them.
 */
@Module({
  imports: [ConfigFeatureModule.register('code', CodeConfig), DocumentsModule],
  controllers: [DiffsController, CodeController],
  providers: [
    CodeDiffsRepository,
    CodeFilesRepository,
    CodeRepositoriesRepository,
    { provide: CodeGraphStore, useClass: PostgresCodeGraphStore },
    CodeChunksService,
    CodeIndexerService,
    CodeDiffWorker,
    DiffApplicationService,
    CodeQueryService,
    SearchVectorDbTool,
    SearchGraphDbTool,
    CodeGraphTool,
  ],
  exports: [DiffApplicationService, CodeQueryService, CodeGraphStore],
})
export class CodeModule {}
