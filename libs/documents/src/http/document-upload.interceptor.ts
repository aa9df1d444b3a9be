import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import multer from 'multer';
import { Observable } from 'rxjs';
import { ErrorKind } from '@app/platform';
import { DocumentsException, DocumentsExceptionCode } from '../documents.exception';
import { DocumentsConfig } from '../documents.config';

/**
 * Accepts `multipart/form-data` (one `file` part, held in memory up to DOCUMENTS_MAX_UPLOAD_BYTES)
 * or JSON; any other body type is a 415.
 */
@Injectable()
export class DocumentUploadInterceptor implements NestInterceptor {
  private readonly upload: ReturnType<ReturnType<typeof multer>['single']>;

  constructor(private readonly config: DocumentsConfig) {
    this.upload = multer({
      storage: multer.memoryStorage(),
      limits: { fileSize: config.DOCUMENTS_MAX_UPLOAD_BYTES, files: 1, fields: 20 },
    }).single('file');
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type === 'multipart/form-data') {
      await new Promise<void>((resolve, reject) =>
        this.upload(request, http.getResponse<Response>(), (error: unknown) =>
          error ? reject(this.translate(error)) : resolve(),
        ),
      );
    } else if (type !== 'application/json') {
      throw new DocumentsException(
        DocumentsExceptionCode.UNSUPPORTED_DOCUMENT_TYPE,
        ErrorKind.UNSUPPORTED_MEDIA_TYPE,
        `Send documents as multipart/form-data (a "file" part) or application/json, not "${type || 'no content type'}".`,
      );
    }
    return next.handle();
  }

  private translate(error: unknown): Error {
    if (error instanceof multer.MulterError) {
      if (error.code === 'LIMIT_FILE_SIZE') {
        const limit = this.config.DOCUMENTS_MAX_UPLOAD_BYTES;
        return new DocumentsException(
          DocumentsExceptionCode.DOCUMENT_TOO_LARGE,
          ErrorKind.PAYLOAD_TOO_LARGE,
          `The file exceeds the ${limit}-byte limit (DOCUMENTS_MAX_UPLOAD_BYTES).`,
          { limit },
        );
      }
      return new DocumentsException(
        DocumentsExceptionCode.INVALID_DOCUMENT_INPUT,
        ErrorKind.INVALID_INPUT,
        error.message,
        {
          code: error.code,
          field: error.field,
        },
      );
    }
    return new DocumentsException(
      DocumentsExceptionCode.INVALID_DOCUMENT_INPUT,
      ErrorKind.INVALID_INPUT,
      `Malformed multipart body: ${(error as Error).message}`,
    );
  }
}
