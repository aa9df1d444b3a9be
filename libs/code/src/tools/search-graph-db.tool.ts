import { BuiltinTool, Tool, ToolContext, ToolDefinition, ToolOutput } from '@app/tools';
import { CodeQueryService } from '../search/code-query.service';

export const SEARCH_GRAPH_DB_TOOL: ToolDefinition = {
  name: 'search_graph_db',
  kind: 'code_graph_search',
  description:
    "Look up functions and classes in the user's code graph by name (코드 구조 검색: 함수 호출 관계, 호출하는 함수, " +
    '상속, import), e.g. "which functions does authenticate call" / "authenticate 함수가 어떤 함수를 호출하는지". Returns ' +
    'each matching symbol with what it calls, what calls it, its file, imports and inheritance.',
  input_schema: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: 'A function or class name, or part of it.',
      },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'Symbols to return.' },
      user_id: {
        type: ['string', 'integer'],
        description: 'Whose code to search; supplied by the system from the caller, never by the model.',
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  output_schema: {
    type: 'object',
    properties: {
      results: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            entity_name: { type: 'string' },
            entity_type: { type: 'string' },
            file: { type: ['string', 'null'] },
            calls: { type: 'array', items: { type: 'string' } },
            called_by: { type: 'array', items: { type: 'string' } },
          },
          required: ['entity_name', 'entity_type', 'calls', 'called_by'],
        },
      },
      count: { type: 'integer' },
    },
    required: ['results', 'count'],
  },
  has_side_effects: false,
  timeout_ms: 15_000,
  source: 'builtin',
  tags: ['code', 'graph'],
  planning_hints: {
    intent: 'search_code_graph',
    examples: {
      ko: [
        'authenticate 함수가 어떤 함수를 호출하는지 알려줘',
        'parseToken 함수는 어디서 호출돼?',
        'UserService 클래스 상속 구조 보여줘',
        'validateOrder 가 import 하는 모듈',
      ],
      en: [
        'which functions does authenticate call',
        'what calls parseToken?',
        'show the class hierarchy of UserService',
        'which modules does validateOrder import',
      ],
    },
    keywords: {
      ko: ['함수', '호출', '호출하는', '클래스', '상속', 'import', '메서드'],
      en: [
        'function',
        'functions',
        'calls',
        'called',
        'callers',
        'callees',
        'class',
        'inherits',
        'import',
        'imports',
        'method',
      ],
    },
    not_for: {
      ko: ['결제 서비스가 의존하는 서비스', '이 서버에 올라간 서비스'],
      en: ['which services depend on the payment api', 'what runs on this host'],
    },
  },
};

/** The seed's SearchGraphDBTool over the PostgreSQL code graph, restricted to the calling user's code. */
@BuiltinTool()
export class SearchGraphDbTool implements Tool {
  readonly definition = SEARCH_GRAPH_DB_TOOL;

  constructor(private readonly code: CodeQueryService) {}

  async execute(context: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    const userId = context.userId;
    const results = await this.code.searchGraph(
      context.tenantId,
      userId,
      String(input.query),
      typeof input.limit === 'number' ? input.limit : 10,
    );
    return { data: { results, count: results.length }, metadata: { user_id: userId } };
  }
}
