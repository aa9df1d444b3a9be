import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { beginRequest, RequestContext } from '@app/platform';

const logger = new Logger('HTTP');

/** Opens the request context (ids for logs and errors) and logs each request once it completes. */
export function requestContextMiddleware(request: Request, response: Response, next: NextFunction): void {
  const state = RequestContext.fromHeaders(request.headers['x-request-id'], request.headers.traceparent);
  response.setHeader('X-Request-Id', state.requestId);
  const started = performance.now();
  // On the embedded database, background work keeps off the connection while the request is in progress.
  const end = beginRequest();
  response.once('close', end);
  response.on('finish', () => {
    end();
    RequestContext.run(state, () => {
      const status = response.statusCode;
      const entry = {
        msg: 'request completed',
        method: request.method,
        path: request.originalUrl.split('?')[0],
        status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
      };
      if (status >= 500) logger.error(entry);
      else if (request.originalUrl.startsWith('/health')) logger.debug(entry);
      else logger.log(entry);
    });
  });
  RequestContext.run(state, () => next());
}
