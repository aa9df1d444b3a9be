import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DocumentChunkEntity } from './entities/document-chunk.entity';
import { DocumentCorpusEntity } from './entities/document-corpus.entity';
import { DocumentJobEntity } from './entities/document-job.entity';
import { DocumentEntity } from './entities/document.entity';

@Module({
  imports: [TypeOrmModule.forFeature([DocumentEntity, DocumentChunkEntity, DocumentJobEntity, DocumentCorpusEntity])],
})
export class DocumentsModule {}
