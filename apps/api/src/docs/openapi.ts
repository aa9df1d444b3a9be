import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorResponseDto } from '../http/error-response.dto';
import { completeContract } from './openapi-contract';
import pluginMetadata from './plugin-metadata';

let metadataLoaded: Promise<void> | undefined;

/** The OpenAPI document of the application's controllers (what /docs-json serves and openapi.json holds). */
export async function buildOpenApiDocument(app: INestApplication): Promise<OpenAPIObject> {
  metadataLoaded ??= SwaggerModule.loadPluginMetadata(pluginMetadata);
  await metadataLoaded;
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
  return completeContract(SwaggerModule.createDocument(app, config, { extraModels: [ErrorResponseDto] }));
}

/** OpenAPI at /docs (UI) and /docs-json (document); both public. */
export async function setupOpenApi(app: INestApplication): Promise<void> {
  const document = await buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', raw: ['json'] });
}
