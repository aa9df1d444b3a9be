import { BuiltinTool, Tool, ToolContext, ToolDefinition, ToolOutput } from '@app/tools';
import { CodeQueryService } from '../search/code-query.service';

export const SEARCH_VECTOR_DB_TOOL: ToolDefinition = {
  name: 'search_vector_db',
  kind: 'code_search',
  description:
    "Search the user's source code by meaning and keywords (코드 검색: 함수, 클래스, 구현 로직 찾기), e.g. " +
    '"find the authentication logic" / "사용자 인증 로직 찾아줘". Returns the matching functions and classes with ' +
    'file, symbol, line span, a preview of the code and a relevance score.',
  input_schema: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        minLength: 1,
        maxLength: 2000,
        description: 'What the code does, in any language.',
      },
      top_k: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'Hits to return.' },
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
            file: { type: 'string' },
            symbol: { type: ['string', 'null'] },
            start_line: { type: ['integer', 'null'] },
            end_line: { type: ['integer', 'null'] },
            preview: { type: 'string' },
            score: { type: 'number' },
          },
          required: ['file', 'preview', 'score'],
        },
      },
      count: { type: 'integer' },
    },
    required: ['results', 'count'],
  },
  has_side_effects: false,
  timeout_ms: 15_000,
  source: 'builtin',
  tags: ['code', 'search'],
  planning_hints: {
    intent: 'search_code',
    examples: {
      ko: [
        '사용자 인증 로직 찾아줘',
        '결제 금액 계산하는 코드 어디 있어?',
        '토큰 갱신 구현 보여줘',
        '파일 업로드 처리하는 함수 찾아줘',
      ],
      en: [
        'find the authentication logic',
        'where is the code that computes the order total?',
        'show me how token refresh is implemented',
        'search the codebase for retry handling',
      ],
    },
    keywords: {
      ko: ['코드', '소스 코드', '코드베이스', '구현', '로직', '함수', '클래스', '메서드'],
      en: [
        'code',
        'source code',
        'codebase',
        'implementation',
        'implemented',
        'function',
        'class',
        'method',
        'repo',
      ],
    },
    not_for: {
      ko: ['결제 서비스 담당팀 누구야', '주문 서비스가 의존하는 DB', '배포 방법 문서 찾아줘'],
      en: [
        'who owns the payment service',
        'what does the order service depend on',
        'find the deployment runbook',
      ],
    },
  },
};

/** The seed's SearchVectorDBTool: code search restricted to the calling user's repositories. */
@BuiltinTool()
export class SearchVectorDbTool implements Tool {
  readonly definition = SEARCH_VECTOR_DB_TOOL;

  constructor(private readonly code: CodeQueryService) {}

  async execute(context: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    // The caller's identity wins over anything in the input (the agent injects it; MCP and plans may not).
    const userId = context.userId;
    const results = await this.code.searchCode(
      context.tenantId,
      userId,
      String(input.query),
      typeof input.top_k === 'number' ? input.top_k : 10,
    );
    return { data: { results, count: results.length }, metadata: { user_id: userId } };
  }
}
