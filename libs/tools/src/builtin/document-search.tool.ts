import {
  CHUNK_TYPES,
  DocumentSearchRequest,
  DocumentSearchService,
  DocumentsException,
  SEARCH_TYPES,
  SearchType,
} from '@app/documents';
import { BuiltinTool } from '../core/tool.decorator';
import { Tool, ToolContext, ToolDefinition, ToolError, ToolErrorCode, ToolOutput } from '../core/tool.types';

interface DocumentSearchInput {
  query: string;
  top_k: number;
  search_type: SearchType;
  min_relevance?: number;
  filters?: DocumentSearchRequest['filters'];
}

const RESULT_SCHEMA = {
  type: 'object',
  properties: {
    rank: { type: 'integer' },
    chunk_id: { type: 'string' },
    document_id: { type: 'string' },
    document_name: { type: 'string' },
    chunk_text: { type: 'string' },
    chunk_index: { type: 'integer' },
    page_number: { type: ['integer', 'null'] },
    slide_number: { type: ['integer', 'null'] },
    chunk_type: { type: 'string' },
    relevance_score: { type: 'number' },
    snippet: { type: 'string' },
  },
  required: ['chunk_id', 'document_id', 'document_name', 'chunk_text', 'relevance_score', 'chunk_type'],
} as const;

export const DOCUMENT_SEARCH_TOOL: ToolDefinition = {
  name: 'document_search',
  kind: 'document_search',
  description:
    'Search the operational documents (문서 검색: 매뉴얼, 런북, 대응 절차, 가이드, 정책 문서) by keywords and meaning ' +
    '(hybrid: full-text and vector search, fused by a weighted sum of their normalised scores unless the ' +
    'deployment configures rank fusion). Use it for "how do I ..." and procedure questions; returns the ' +
    'matching passages with their document names and relevance scores.',
  input_schema: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        minLength: 2,
        maxLength: 2000,
        description: 'What to look for, in any language.',
      },
      top_k: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'Passages to return.' },
      search_type: {
        type: 'string',
        enum: [...SEARCH_TYPES],
        default: 'hybrid',
        description: 'text: keywords only; vector: meaning only; hybrid: both, fused.',
      },
      min_relevance: {
        type: 'number',
        minimum: 0,
        maximum: 1,
        description:
          'A floor on relevance_score: for hybrid the fused score scaled to [0, 1], for text and vector the branch score.',
      },
      filters: {
        type: 'object',
        description: 'Restrict the documents searched.',
        properties: {
          document_ids: { type: 'array', items: { type: 'string', format: 'uuid' }, maxItems: 1000 },
          content_types: { type: 'array', items: { type: 'string', minLength: 1 } },
          chunk_types: { type: 'array', items: { type: 'string', enum: [...CHUNK_TYPES] } },
          metadata: { type: 'object', description: 'JSON containment on document metadata.' },
          created_after: { type: 'string', format: 'date-time' },
          created_before: { type: 'string', format: 'date-time' },
        },
        additionalProperties: false,
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  output_schema: {
    type: 'object',
    properties: {
      results: { type: 'array', items: RESULT_SCHEMA },
      count: { type: 'integer' },
    },
    required: ['results', 'count'],
  },
  has_side_effects: false,
  timeout_ms: 15_000,
  source: 'builtin',
  tags: ['documents', 'search'],
  planning_hints: {
    intent: 'search_documents',
    examples: {
      ko: ['휴가 신청 방법 알려줘', '장애 대응 절차 문서 찾아줘', '인증서 갱신은 어떻게 해?'],
      en: [
        'how do I request vacation?',
        'find the incident response procedure',
        'how do we renew the certificate?',
      ],
    },
    keywords: {
      ko: ['문서', '매뉴얼', '가이드', '절차', '정책', '런북'],
      en: ['document', 'documents', 'manual', 'guide', 'procedure', 'policy', 'runbook'],
    },
  },
};

/** The document store's search as a tool; the tenant is the caller's, never part of the input. */
@BuiltinTool()
export class DocumentSearchTool implements Tool {
  readonly definition = DOCUMENT_SEARCH_TOOL;

  constructor(private readonly search: DocumentSearchService) {}

  async execute(context: ToolContext, raw: Record<string, unknown>): Promise<ToolOutput> {
    const input = raw as unknown as DocumentSearchInput;
    try {
      const response = await this.search.search(context.tenantId, {
        query: input.query,
        top_k: input.top_k,
        search_type: input.search_type,
        min_relevance: input.min_relevance,
        filters: input.filters,
      });
      return {
        data: { results: response.results, count: response.results.length },
        warnings: response.warnings,
        metadata: {
          query: response.query,
          search_type: response.search_type,
          embedding_model: response.embedding_model,
          cached: response.cached,
          search_time_ms: response.execution_time_ms,
        },
      };
    } catch (error) {
      if (error instanceof DocumentsException)
        throw new ToolError(ToolErrorCode.INVALID_INPUT, error.message, {
          documents_code: error.code,
          details: error.details,
        });
      throw error;
    }
  }
}
