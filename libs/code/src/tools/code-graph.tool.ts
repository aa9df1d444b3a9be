import { BuiltinTool, Tool, ToolContext, ToolDefinition, ToolOutput } from '@app/tools';
import { CodeQueryService } from '../search/code-query.service';

export const CODE_GRAPH_TOOL: ToolDefinition = {
  name: 'code_graph',
  tool_type: 'code_graph',
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
