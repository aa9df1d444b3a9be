import { Injectable } from '@nestjs/common';
import type {
  GetPromptResult,
  ListPromptsResult,
  ListResourcesResult,
  Prompt,
  ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { PublishedAssetReader, type AssetSnapshot, type PromptContent } from '@app/asset-registry';
import { DocumentIngestionService, DocumentsException } from '@app/documents';
import { mcpTypes } from './mcp-sdk';

/** Documents per resources/list page (the cursor is the next offset). */
export const MCP_RESOURCE_PAGE_SIZE = 50;
/** Chunks of a document read into one resources/read answer. */
export const MCP_RESOURCE_MAX_CHUNKS = 1000;
export const DOCUMENT_URI_PREFIX = 'ops://documents/';

const PLACEHOLDER = /\{\{\s*(?:input\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const invalidParams = (message: string): Error => {
  const { ErrorCode, McpError } = mcpTypes();
  return new McpError(ErrorCode.InvalidParams, message);
};

type PromptText = Pick<PromptContent, 'template' | 'input_schema'>;

const promptOf = (snapshot: AssetSnapshot): PromptText => ({
  template: typeof snapshot.template === 'string' ? snapshot.template : '',
  input_schema: (snapshot.input_schema as Record<string, unknown> | undefined) ?? null,
});

interface PromptArgumentSchema {
  properties?: Record<string, { description?: unknown }>;
  required?: unknown;
}

/** A published prompt asset's arguments: its input_schema's properties (required where the schema says so). */
export function promptArguments(content: PromptText): NonNullable<Prompt['arguments']> {
  const schema = (content.input_schema ?? {}) as PromptArgumentSchema;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const names = Object.keys(schema.properties ?? {});
  for (const match of content.template.matchAll(PLACEHOLDER))
    if (!names.includes(match[1])) names.push(match[1]);
  return names.map((name) => {
    const description = schema.properties?.[name]?.description;
    return {
      name,
      ...(typeof description === 'string' ? { description } : {}),
      required: required.has(name),
    };
  });
}

/** Fills `{{name}}` / `{{input.name}}` placeholders; a placeholder without an argument stays empty. */
export function renderPrompt(template: string, args: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (_whole, name: string) => args[name] ?? '');
}

/**
 * What the MCP server offers besides tools: the caller's tenant's documents as read-only resources
 * (`ops://documents/<id>`, listed in pages) and its published prompt assets as prompts. Every read
 * is scoped to the tenant of the session's key.
 */
@Injectable()
export class McpContentService {
  constructor(
    private readonly documents: DocumentIngestionService,
    private readonly assets: PublishedAssetReader,
  ) {}

  async listResources(tenantId: string, cursor: string | undefined): Promise<ListResourcesResult> {
    const offset = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw invalidParams(`Invalid cursor ${JSON.stringify(cursor)}`);
    const page = await this.documents.list(tenantId, { limit: MCP_RESOURCE_PAGE_SIZE, offset });
    const next = offset + page.items.length;
    return {
      resources: page.items.map((document) => ({
        uri: `${DOCUMENT_URI_PREFIX}${document.id}`,
        name: document.filename,
        mimeType: 'text/plain',
        size: document.size,
        _meta: {
          status: document.status,
          content_type: document.content_type,
          updated_at: document.updated_at,
        },
      })),
      ...(next < page.total ? { nextCursor: String(next) } : {}),
    };
  }

  async readResource(tenantId: string, uri: string): Promise<ReadResourceResult> {
    const id = uri.startsWith(DOCUMENT_URI_PREFIX) ? uri.slice(DOCUMENT_URI_PREFIX.length) : '';
    if (!UUID.test(id)) throw invalidParams(`Resource ${uri} not found`);
    try {
      const document = await this.documents.get(tenantId, id);
      // A user's code is visible only to that user's code tools, as in the document list.
      if (document.doc_metadata?.source === 'code') throw invalidParams(`Resource ${uri} not found`);
      const { items, total } = await this.documents.chunksOf(tenantId, id, MCP_RESOURCE_MAX_CHUNKS, 0);
      return {
        contents: [
          {
            uri,
            mimeType: 'text/plain',
            text: items.map((chunk) => chunk.text).join('\n\n'),
            _meta: {
              filename: document.filename,
              status: document.status,
              chunks: total,
              truncated: total > items.length,
            },
          },
        ],
      };
    } catch (error) {
      if (error instanceof DocumentsException) throw invalidParams(`Resource ${uri} not found`);
      throw error;
    }
  }

  async listPrompts(tenantId: string): Promise<ListPromptsResult> {
    const published = await this.assets.listPublished(tenantId, 'prompt');
    return {
      prompts: published.map((asset) => ({
        name: asset.name,
        ...(asset.snapshot.description ? { description: asset.snapshot.description } : {}),
        arguments: promptArguments(promptOf(asset.snapshot)),
        _meta: { version: asset.version },
      })),
    };
  }

  async getPrompt(
    tenantId: string,
    name: string,
    args: Record<string, string> | undefined,
  ): Promise<GetPromptResult> {
    const asset = await this.assets.getPublished(tenantId, 'prompt', name);
    if (!asset) throw invalidParams(`Prompt ${name} not found`);
    const content = promptOf(asset.snapshot);
    const given = args ?? {};
    const missing = promptArguments(content)
      .filter((argument) => argument.required && given[argument.name] === undefined)
      .map((argument) => argument.name);
    if (missing.length) throw invalidParams(`Prompt ${name} needs the argument(s) ${missing.join(', ')}`);
    return {
      ...(asset.snapshot.description ? { description: asset.snapshot.description } : {}),
      messages: [{ role: 'user', content: { type: 'text', text: renderPrompt(content.template, given) } }],
      _meta: { version: asset.version },
    };
  }
}
