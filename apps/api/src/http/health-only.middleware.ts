import type { NextFunction, Request, Response } from 'express';

/** A worker process exposes its probes only: everything else is 404, before authentication runs. */
export function healthOnlyMiddleware(req: Request, res: Response, next: NextFunction): void {
  if (req.path === '/health' || req.path.startsWith('/health/')) {
    next();
    return;
  }
  res.status(404).json({
    error: 'NOT_FOUND',
    message: 'This process is a worker (APP_ROLE=worker): it serves /health only.',
    requestId: null,
  });
}
