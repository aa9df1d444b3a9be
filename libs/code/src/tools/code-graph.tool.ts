import { BuiltinTool, Tool, ToolContext, ToolDefinition, ToolOutput } from '@app/tools';
import { CodeQueryService } from '../search/code-query.service';

export const CODE_GRAPH_TOOL: ToolDefinition = {
  name: 'code_graph',
  kind: 'code_graph',
  description:
    "Walk the user's code graph from one function or class: its callers, its callees, the impact set of changing it " +
    '(transitive callers, subclasses, importers) or the call path to another symbol (코드 호출 그래프: 호출자, 피호출자, 영향 범위).',
  input_schema: {
    type: 'object',
    properties: {
      operation: { type: 'string', enum: ['callers', 'callees', 'impact', 'path'] },
      symbol: { type: 'string', minLength: 1, maxLength: 200, description: 'The function or class name.' },
      target: { type: 'string', minLength: 1, maxLength: 200, description: 'path: the symbol to reach.' },
      depth: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
      limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
      user_id: { type: ['string', 'integer'], description: 'Supplied by the system from the caller.' },
    },
    required: ['operation', 'symbol'],
    additionalProperties: false,
  },
  output_schema: null,
  has_side_effects: false,
  timeout_ms: 15_000,
  source: 'builtin',
  tags: ['code', 'graph'],
  planning_hints: {
    intent: 'walk_code_graph',
    examples: {
      ko: [
        'authenticate 함수를 호출하는 곳 전부',
        'saveOrder 바꾸면 영향 받는 함수들',
        'login 에서 hashPassword 까지 호출 경로',
        'parseConfig 가 부르는 함수 2단계까지',
      ],
      en: [
        'every caller of authenticate',
        'what is impacted if I change saveOrder',
        'call path from login to hashPassword',
        'callees of parseConfig up to depth 2',
      ],
    },
    keywords: {
      ko: ['호출자', '피호출자', '호출 경로', '호출 그래프', '함수'],
      en: ['callers', 'callees', 'call path', 'call graph', 'call chain', 'function'],
    },
    not_for: {
      ko: ['결제 API 장애 나면 영향 받는 서비스', '주문 서비스 의존성'],
      en: ['which services are affected if the payment api goes down', 'dependencies of the order service'],
    },
  },
};

@BuiltinTool()
export class CodeGraphTool implements Tool {
  readonly definition = CODE_GRAPH_TOOL;

  constructor(private readonly code: CodeQueryService) {}

  async execute(context: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    const result = await this.code.graphQuery(
      context.tenantId,
      context.userId,
      input.operation as 'callers' | 'callees' | 'impact' | 'path',
      String(input.symbol),
      {
        depth: typeof input.depth === 'number' ? input.depth : 3,
        limit: typeof input.limit === 'number' ? input.limit : 50,
        target: typeof input.target === 'string' ? input.target : undefined,
      },
    );
    return {
      data: { symbol: result.symbol, results: result.results, count: result.results.length },
      warnings: result.symbol ? [] : [`no symbol matches "${String(input.symbol)}"`],
    };
  }
}
