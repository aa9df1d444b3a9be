import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  AppException,
  ErrorKind,
  invalidDataMessage,
  isDatabaseUnavailable,
  PlatformExceptionCode,
  RequestContext,
} from '@app/platform';

export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  [ErrorKind.INVALID_INPUT]: HttpStatus.BAD_REQUEST,
  [ErrorKind.UNAUTHENTICATED]: HttpStatus.UNAUTHORIZED,
  [ErrorKind.FORBIDDEN]: HttpStatus.FORBIDDEN,
  [ErrorKind.NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorKind.CONFLICT]: HttpStatus.CONFLICT,
  [ErrorKind.GONE]: HttpStatus.GONE,
  [ErrorKind.PAYLOAD_TOO_LARGE]: HttpStatus.PAYLOAD_TOO_LARGE,
  [ErrorKind.UNSUPPORTED_MEDIA_TYPE]: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  [ErrorKind.RATE_LIMITED]: HttpStatus.TOO_MANY_REQUESTS,
  [ErrorKind.UNAVAILABLE]: HttpStatus.SERVICE_UNAVAILABLE,
  [ErrorKind.INTERNAL]: HttpStatus.INTERNAL_SERVER_ERROR,
};

const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'RATE_LIMITED',
};

export interface ErrorBody {
  error: string;
  message: string;
  details?: unknown;
  requestId: string | undefined;
}

/** Errors raised by body parsing (bad JSON, too large) before any controller runs. */
interface BodyParserError {
  type?: string;
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message: string;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as BodyParserError).type === 'string' &&
    typeof ((error as BodyParserError).status ?? (error as BodyParserError).statusCode) === 'number'
  );
}

/** The wait a coded 429 names in its details (`retry_after_seconds`), sent as `Retry-After`. */
function retryAfterOf(exception: unknown): number | undefined {
  if (!(exception instanceof AppException)) return undefined;
  const seconds = (exception.details as { retry_after_seconds?: unknown } | undefined)?.retry_after_seconds;
  return typeof seconds === 'number' && seconds > 0 ? Math.ceil(seconds) : undefined;
}

/** Seconds a client should wait before retrying a 503 (sent as `Retry-After`). */
export const RETRY_AFTER_SECONDS = 2;

/** The one place where exceptions become HTTP responses: `{ error, message, details, requestId }`. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    const { status, body } = this.toResponse(exception, request);
    const unavailable = status === (HttpStatus.SERVICE_UNAVAILABLE as number);
    if (unavailable) {
      this.logger.warn({
        msg: 'request answered 503',
        method: request.method,
        path: request.originalUrl,
        error: exception instanceof Error ? exception.message : String(exception),
      });
    } else if (status >= 500) {
      this.logger.error(
        { msg: 'request failed', method: request.method, path: request.originalUrl, status },
        exception as Error,
      );
    }
    if (response.headersSent) return;
    if (unavailable && !response.getHeader('retry-after')) {
      response.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    }
    const retryAfter = retryAfterOf(exception);
    if (
      status === (HttpStatus.TOO_MANY_REQUESTS as number) &&
      retryAfter &&
      !response.getHeader('retry-after')
    ) {
      response.setHeader('Retry-After', String(retryAfter));
    }
    response.status(status).json(body);
  }

  private toResponse(exception: unknown, request: Request): { status: number; body: ErrorBody } {
    const header = request.headers['x-request-id'];
    const requestId = RequestContext.requestId() ?? (typeof header === 'string' ? header : undefined);
    if (exception instanceof AppException) {
      return {
        status: STATUS_BY_KIND[exception.kind],
        body: { error: exception.code, message: exception.message, details: exception.details, requestId },
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const payload = exception.getResponse();
      const message =
        typeof payload === 'object' && payload !== null && 'message' in payload
          ? [payload.message].flat().join('; ')
          : exception.message;
      if (status >= 500) return this.internal(requestId);
      return { status, body: { error: CODE_BY_STATUS[status] ?? 'HTTP_ERROR', message, requestId } };
    }
    if (isBodyParserError(exception)) {
      const status = exception.status ?? exception.statusCode ?? 400;
      if (status >= 500) return this.internal(requestId);
      const error =
        exception.type === 'entity.parse.failed'
          ? 'MALFORMED_JSON'
          : (CODE_BY_STATUS[status] ?? 'BAD_REQUEST');
      return {
        status,
        body: { error, message: exception.message, details: { type: exception.type }, requestId },
      };
    }
    const invalidData = invalidDataMessage(exception);
    if (invalidData) {
      this.logger.warn({
        msg: 'database refused a value',
        path: request.originalUrl,
        error: String(exception),
      });
      return {
        status: HttpStatus.BAD_REQUEST,
        body: { error: 'INVALID_DATA', message: `${invalidData}.`, requestId },
      };
    }
    if (isDatabaseUnavailable(exception)) {
      return {
        status: HttpStatus.SERVICE_UNAVAILABLE,
        body: {
          error: PlatformExceptionCode.DATABASE_UNAVAILABLE,
          message: 'The database is busy or unreachable; retry shortly.',
          requestId,
        },
      };
    }
    return this.internal(requestId);
  }

  private internal(requestId: string | undefined): { status: number; body: ErrorBody } {
    return {
      status: HttpStatus.INTERNAL_SERVER_ERROR,
      body: {
        error: 'INTERNAL_ERROR',
        message: 'An unexpected error occurred. Quote the requestId when reporting it.',
        requestId,
      },
    };
  }
}
