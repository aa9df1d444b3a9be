import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Where `npm run build` puts the console bundle: dist/console, found from this file whether it runs
 * compiled (dist/apps/api/src/console) or from source under jest (apps/api/src/console).
 */
export function consoleDirectory(): string {
  const marker = `${path.sep}dist${path.sep}`;
  const distRoot = __dirname.includes(marker)
    ? __dirname.slice(0, __dirname.indexOf(marker) + marker.length)
    : path.resolve(__dirname, '../../../../dist');
  return path.join(distRoot, 'console');
}

/**
 * Security headers on every answer, with a Content-Security-Policy the console satisfies (its script and
 * style are files from this origin, never inline), and the console's static files at /console; `GET /`
 * redirects there. Cross-origin API use (CORS_ORIGINS) is unchanged: resources stay readable cross-origin.
 */
export function serveConsole(app: NestExpressApplication): void {
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: true,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          frameAncestors: ["'none'"],
          upgradeInsecureRequests: null,
        },
      },
      crossOriginResourcePolicy: { policy: 'cross-origin' },
      strictTransportSecurity: false,
    }),
  );
  const directory = consoleDirectory();
  app.use((request: Request, response: Response, next: NextFunction) => {
    if (request.method === 'GET' && request.path === '/') return response.redirect(302, '/console/');
    if (request.method === 'GET' && request.path === '/console') return response.redirect(301, '/console/');
    next();
  });
  if (existsSync(directory)) {
    app.useStaticAssets(directory, { prefix: '/console/', index: 'index.html', maxAge: '5m' });
  }
}
