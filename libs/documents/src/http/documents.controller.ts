import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Post,
  Put,
  Query,
  Res,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import type { Response } from 'express';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, ErrorKind, IdempotentRead, Principal, RequireRole } from '@app/platform';
import { DocumentsException, DocumentsExceptionCode } from '../documents.exception';
import type { DocumentInput, DocumentSearchResponse, DocumentView } from '../documents.types';
import { DocumentIngestionService } from '../ingestion/document-ingestion.service';
import { DocumentSearchService } from '../search/document-search.service';
import {
  ChunkListQueryDto,
  DeadLetterQueryDto,
  DocumentRetryQueryDto,
  DocumentContentRequestDto,
  DocumentListQueryDto,
  DocumentSearchRequestDto,
  DocumentUploadRequestDto,
} from './document.dto';
import { DocumentUploadInterceptor } from './document-upload.interceptor';

function toInput(
  body: DocumentContentRequestDto,
  file: Express.Multer.File | undefined,
  principal: Principal,
): DocumentInput {
  if (file) {
    return {
      filename: body.filename ?? file.originalname,
      content: file.buffer,
      contentType: body.content_type ?? file.mimetype,
      metadata: body.metadata,
      userId: principal.userId,
    };
  }
  if (!body.filename || body.content === undefined) {
    throw new DocumentsException(
      DocumentsExceptionCode.INVALID_DOCUMENT_INPUT,
      ErrorKind.INVALID_INPUT,
      'Send a multipart "file" part, or JSON with filename and content.',
      { missing: [!body.filename && 'filename', body.content === undefined && 'content'].filter(Boolean) },
    );
  }
  return {
    filename: body.filename,
    content: body.content_encoding === 'base64' ? Buffer.from(body.content, 'base64') : body.content,
    contentType: body.content_type,
    metadata: body.metadata,
    userId: principal.userId,
  };
}

@ApiTags('documents')
@ApiBearerAuth()
@Controller('api/documents')
export class DocumentsController {
  constructor(
    private readonly ingestion: DocumentIngestionService,
    private readonly searchService: DocumentSearchService,
  ) {}

  @Post()
  @RequireRole('operator')
  @UseInterceptors(DocumentUploadInterceptor)
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody({ type: DocumentUploadRequestDto })
  @ApiOperation({
    summary:
      'Upload a document (multipart "file", or JSON); it is queued for ingestion (202). The same filename and content as a live document returns that document (200, deduplicated: true)',
  })
  @ApiResponse({
    status: 202,
    description: 'Queued for ingestion; follow status and processing_progress at GET /api/documents/{id}',
    schema: { $ref: '#/components/schemas/DocumentView' },
  })
  @ApiResponse({
    status: 200,
    description: 'The same filename and content as a live document: that document, with deduplicated: true',
    schema: { $ref: '#/components/schemas/DocumentView' },
  })
  @HttpCode(202)
  async create(
    @Body() body: DocumentContentRequestDto,
    @UploadedFile() file: Express.Multer.File | undefined,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DocumentView> {
    const document = await this.ingestion.create(principal.tenantId, toInput(body, file, principal));
    if (document.deduplicated) response.status(200);
    return document;
  }

  @Post('search')
  @RequireRole('reader')
  @IdempotentRead()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Search chunks: text, vector or hybrid (convex fusion of normalised scores by default, or RRF)',
  })
  search(
    @Body() body: DocumentSearchRequestDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<DocumentSearchResponse> {
    return this.searchService.search(principal.tenantId, body);
  }

  @Get()
  @RequireRole('reader')
  @ApiOperation({
    summary: 'List documents (filter by status, type, content type, filename, metadata; paginated)',
  })
  list(@Query() query: DocumentListQueryDto, @CurrentPrincipal() principal: Principal) {
    return this.ingestion.list(principal.tenantId, {
      status: query.status,
      format: query.type,
      contentType: query.content_type,
      filename: query.filename,
      metadata: query.metadata,
      includeDeleted: query.include_deleted,
      limit: query.limit,
      offset: query.offset,
    });
  }

  @Post('retry')
  @RequireRole('operator')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Retry every failed document of the tenant (?status=failed) with the bytes kept from its failure; lists what it skipped',
  })
  retryAll(@Query() _query: DocumentRetryQueryDto, @CurrentPrincipal() principal: Principal) {
    return this.ingestion.retryAllFailed(principal.tenantId);
  }

  @Get('jobs/dead-letter')
  @RequireRole('reader')
  @ApiOperation({
    summary:
      'Failed ingestion and re-embed jobs nobody has retried, replaced or dismissed yet, with their error and attempts',
  })
  deadLetter(@Query() query: DeadLetterQueryDto, @CurrentPrincipal() principal: Principal) {
    return this.ingestion.deadLetter(principal.tenantId, {
      includeResolved: query.include_resolved,
      limit: query.limit,
      offset: query.offset,
    });
  }

  @Post('jobs/:jobId/dismiss')
  @RequireRole('operator')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Mark a dead-letter job as looked at: it leaves the view and retention cleanup may remove it',
  })
  dismissDeadLetter(@Param('jobId', ParseUUIDPipe) jobId: string, @CurrentPrincipal() principal: Principal) {
    return this.ingestion.dismissDeadLetter(principal.tenantId, jobId);
  }

  @Get(':id')
  @RequireRole('reader')
  @ApiOperation({ summary: 'A document with its status, progress, chunk count and error details' })
  get(
    @Param('id', ParseUUIDPipe) id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<DocumentView> {
    return this.ingestion.get(principal.tenantId, id);
  }

  @Get(':id/chunks')
  @RequireRole('reader')
  @ApiOperation({ summary: 'The chunks search currently serves for this document' })
  chunks(
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: ChunkListQueryDto,
    @CurrentPrincipal() principal: Principal,
  ) {
    return this.ingestion.chunksOf(principal.tenantId, id, query.limit, query.offset);
  }

  @Put(':id')
  @RequireRole('operator')
  @UseInterceptors(DocumentUploadInterceptor)
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody({ type: DocumentUploadRequestDto })
  @ApiOperation({
    summary: 'Replace the content; unchanged content queues nothing, changed chunks are re-embedded',
  })
  async update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: DocumentContentRequestDto,
    @UploadedFile() file: Express.Multer.File | undefined,
    @CurrentPrincipal() principal: Principal,
  ) {
    await this.refuseCodeDocument(principal.tenantId, id);
    const result = await this.ingestion.update(principal.tenantId, id, toInput(body, file, principal));
    return { ...result.document, queued: result.queued };
  }

  @Delete(':id')
  @RequireRole('operator')
  @ApiOperation({ summary: 'Soft-delete (sets deleted_at; purged after the retention period)' })
  async remove(
    @Param('id', ParseUUIDPipe) id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<DocumentView> {
    await this.refuseCodeDocument(principal.tenantId, id);
    return this.ingestion.remove(principal.tenantId, id);
  }

  @Post(':id/retry')
  @RequireRole('operator')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Queue a failed document again with the bytes kept from its failure (retry_count + 1)',
  })
  async retry(
    @Param('id', ParseUUIDPipe) id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<DocumentView> {
    await this.refuseCodeDocument(principal.tenantId, id);
    return this.ingestion.retry(principal.tenantId, id);
  }

  @Post(':id/restore')
  @RequireRole('operator')
  @HttpCode(200)
  @ApiOperation({ summary: 'Undo a soft delete' })
  async restore(
    @Param('id', ParseUUIDPipe) id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<DocumentView> {
    await this.refuseCodeDocument(principal.tenantId, id);
    return this.ingestion.restore(principal.tenantId, id);
  }

  /**
   * Code documents mirror a repository's files and the code graph points at their chunks: a PUT or
   * DELETE here would leave the graph and the repository out of step, so only diff application
   * changes them (409 DOCUMENT_MANAGED_BY_CODE; reads stay open, as /api/code's are).
   */
  private async refuseCodeDocument(tenantId: string, id: string): Promise<void> {
    const document = await this.ingestion.get(tenantId, id);
    if (document.doc_metadata?.source === 'code') throw DocumentsException.managedByCode(id);
  }
}
