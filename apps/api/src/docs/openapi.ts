import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorResponseDto } from '../http/error-response.dto';
import { documentAssetTypes } from './asset-type-docs';
import { completeContract } from './openapi-contract';
import pluginMetadata from './plugin-metadata';

let metadataLoaded: Promise<void> | undefined;

/** The DTO metadata the swc build does not emit (generated into plugin-metadata.ts); loaded once. */
function loadMetadata(): Promise<void> {
  metadataLoaded ??= SwaggerModule.loadPluginMetadata(pluginMetadata);
  return metadataLoaded;
}

/** The document itself: the plugin metadata must have been loaded. */
function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('OPS copilot API')
    .setDescription(
      'Document search, versioned assets, tools and an LLM planner over operations data. ' +
        'Every endpoint except /health and /docs needs an API key: `Authorization: Bearer <key>` or `X-Api-Key`.',
    )
    .setVersion('0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key' })
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }, 'api-key')
    .build();
  return documentAssetTypes(
    completeContract(SwaggerModule.createDocument(app, config, { extraModels: [ErrorResponseDto] })),
  );
}

/** The OpenAPI document of the application's controllers (what /docs-json serves and openapi.json holds). */
export async function buildOpenApiDocument(app: INestApplication): Promise<OpenAPIObject> {
  await loadMetadata();
  return createOpenApiDocument(app);
}

/**
 * OpenAPI at /docs (UI) and /docs-json (document); both public. The document is built on its first
 * request, not at start-up: scanning every controller and DTO took ~0.4 s of a start on a busy
 * machine, which readiness does not need.
 */
export async function setupOpenApi(app: INestApplication): Promise<void> {
  await loadMetadata();
  // SwaggerModule calls the factory on the first request and keeps what it returns.
  SwaggerModule.setup('docs', app, () => createOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    raw: ['json'],
  });
}
