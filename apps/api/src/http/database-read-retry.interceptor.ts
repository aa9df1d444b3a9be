import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Observable, retry, throwError, timer } from 'rxjs';
import { IDEMPOTENT_READ, isDatabaseUnavailable, READ_RETRY_DELAY_MS } from '@app/platform';

const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * Runs a read handler (GET, HEAD, or a route marked `@IdempotentRead()`) once more when the
 * database dropped the connection under it; a second failure is answered 503 by the filter.
 * Writes are never repeated: whether a write whose connection died was committed is unknown.
 */
@Injectable()
export class DatabaseReadRetryInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http' || !this.isRead(context)) return next.handle();
    return next.handle().pipe(
      retry({
        count: 1,
        delay: (error: unknown) =>
          isDatabaseUnavailable(error)
            ? timer(READ_RETRY_DELAY_MS + Math.random() * READ_RETRY_DELAY_MS)
            : throwError(() => error),
      }),
    );
  }

  private isRead(context: ExecutionContext): boolean {
    const method = context.switchToHttp().getRequest<Request>().method;
    return (
      READ_METHODS.has(method) ||
      this.reflector.getAllAndOverride<boolean>(IDEMPOTENT_READ, [
        context.getHandler(),
        context.getClass(),
      ]) === true
    );
  }
}
