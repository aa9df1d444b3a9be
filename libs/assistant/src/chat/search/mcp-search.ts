import { createHash, randomUUID } from 'node:crypto';
import type { DependencyHealth } from '@app/platform';
import type { ToolRegistry } from '@app/tools';
import { DocumentRetriever } from './document-retriever';
import type { Passage } from './passage';
import { WebSearchProvider, type WebPassage } from './web-search.provider';

type DocumentPassage = Extract<Passage, { kind: 'document' }>;

const SEARCH_DEADLINE_MS = 15_000;

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() ? value : undefined;
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** The list of hits in an MCP search result: an array, or the first array under a usual key, or the text itself. */
function hitsOf(data: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(data))
    return data.map((item) =>
      item && typeof item === 'object' ? (item as Record<string, unknown>) : { text: String(item) },
    );
  if (data && typeof data === 'object') {
    for (const key of ['results', 'documents', 'items', 'hits', 'passages']) {
      const value = (data as Record<string, unknown>)[key];
      if (Array.isArray(value)) return hitsOf(value);
    }
    const text = str((data as Record<string, unknown>).text);
    if (text) return [data as Record<string, unknown>];
  }
  if (typeof data === 'string' && data.trim()) return [{ text: data }];
  return [];
}

const textOf = (hit: Record<string, unknown>) =>
  str(hit.text) ?? str(hit.content) ?? str(hit.document) ?? str(hit.snippet) ?? str(hit.chunk_text);

/**
 * Runs the configured MCP tool (an external server from MCP_SERVERS, registered as `<server>__<tool>`)
 * through the tool registry, as the chat, so the tenant's tool policy and the side-effect gate apply.
 * The query goes in the `query` property (or the first required string property of the tool's
 * input schema), `top_k` when the schema declares it.
 */
async function runSearchTool(
  registry: ToolRegistry,
  tool: string,
  tenantId: string,
  query: string,
  topK: number,
  signal?: AbortSignal,
): Promise<Array<Record<string, unknown>>> {
  const definition = registry.definition(tenantId, tool);
  if (!definition)
    throw new Error(`The MCP search tool ${tool} is not registered (is its server in MCP_SERVERS?).`);
  if (!definition.available)
    throw new Error(`The MCP search tool ${tool} is unavailable (its server is down).`);
  const properties = (definition.input_schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = (definition.input_schema.required ?? []) as string[];
  const queryKey =
    'query' in properties
      ? 'query'
      : (required.find((name) => properties[name]?.type === 'string') ?? 'query');
  const input: Record<string, unknown> = { [queryKey]: query };
  for (const key of ['top_k', 'topK', 'limit', 'k'])
    if (key in properties) {
      input[key] = topK;
      break;
    }
  const controller = new AbortController();
  const result = await registry.execute(
    {
      tenantId,
      userId: 'chat',
      requestId: randomUUID(),
      traceId: randomUUID(),
      deadline: Date.now() + SEARCH_DEADLINE_MS,
      signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
      caller: 'chat',
    },
    tool,
    input,
  );
  if (!result.success) throw new Error(`${tool}: ${result.error ?? 'failed'}`);
  return hitsOf(result.data);
}

/** The chat's internal search through an MCP tool (the seed's `vector-search` server). */
export class McpDocumentRetriever extends DocumentRetriever {
  constructor(
    private readonly registry: ToolRegistry,
    readonly tool: string,
  ) {
    super();
  }

  async search(tenantId: string, query: string, topK: number): Promise<DocumentPassage[]> {
    const hits = await runSearchTool(this.registry, this.tool, tenantId, query, topK);
    return hits.slice(0, topK).flatMap((hit, index): DocumentPassage[] => {
      const text = textOf(hit);
      if (!text) return [];
      const metadata = (hit.metadata && typeof hit.metadata === 'object' ? hit.metadata : {}) as Record<
        string,
        unknown
      >;
      const name =
        str(hit.document_name) ??
        str(hit.title) ??
        str(hit.source) ??
        str(metadata.source) ??
        str(metadata.title) ??
        this.tool;
      const id = str(hit.document_id) ?? str(hit.id) ?? str(metadata.document_id) ?? name;
      return [
        {
          kind: 'document',
          document_id: id,
          document_name: name,
          chunk_id:
            str(hit.chunk_id) ??
            `${this.tool}:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`,
          chunk_index: num(hit.chunk_index) ?? index,
          page: num(hit.page) ?? num(metadata.page) ?? null,
          score:
            num(hit.score) ?? (num(hit.distance) !== undefined ? 1 - num(hit.distance)! : 1 / (index + 1)),
          text,
        },
      ];
    });
  }
}

/** The chat's web search through an MCP tool (the seed's `web-search` server). */
export class McpWebSearchProvider extends WebSearchProvider {
  readonly configured = true;

  constructor(
    private readonly registry: ToolRegistry,
    readonly tool: string,
  ) {
    super();
  }

  async search(query: string, topK: number, signal?: AbortSignal, tenantId?: string): Promise<WebPassage[]> {
    const hits = await runSearchTool(this.registry, this.tool, tenantId ?? 'system', query, topK, signal);
    return hits
      .filter((hit) => /^https?:\/\//.test(str(hit.url) ?? str(hit.link) ?? ''))
      .slice(0, topK)
      .map((hit, index) => ({
        kind: 'web' as const,
        url: (str(hit.url) ?? str(hit.link))!,
        title: str(hit.title) ?? str(hit.name) ?? (str(hit.url) ?? str(hit.link))!,
        score: num(hit.score) ?? 1 / (index + 1),
        text: textOf(hit) ?? '',
      }));
  }

  health(): Promise<DependencyHealth> {
    const definition = this.registry.definition('system', this.tool);
    return Promise.resolve(
      definition?.available
        ? { status: 'ok', mcp_tool: this.tool }
        : {
            status: 'degraded',
            mcp_tool: this.tool,
            reason: definition ? 'server down' : 'tool not registered yet',
          },
    );
  }
}
