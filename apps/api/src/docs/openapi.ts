import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

/** OpenAPI at /docs (UI) and /docs-json (document); both public. */
export function setupOpenApi(app: INestApplication): void {
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
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', raw: ['json'] });
}
