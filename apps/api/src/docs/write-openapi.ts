import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { writeFileSync } from 'node:fs';
import { AppModule } from '../app.module';
import { buildOpenApiDocument } from './openapi';

/**
 * Prints (or writes to the file given as argument) the OpenAPI document, built from the controllers
 * and DTOs in preview mode: nothing is instantiated, so no database or cache is needed.
 */
async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule.forRoot(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  const text = `${JSON.stringify(await buildOpenApiDocument(app), null, 2)}\n`;
  const target = process.argv[2];
  if (target) writeFileSync(target, text);
  else process.stdout.write(text);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
