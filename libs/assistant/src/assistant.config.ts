import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsNumber, IsOptional, Matches, Max, Min } from 'class-validator';
import { ConfigDoc, emptyToUndefined, optionalNumber, toNumber } from '@app/platform/config';

/** The assistant's keys: the tool-calling agent, its runs and webhooks, and the RAG chat. */
export class AssistantConfig {
  @ConfigDoc('time limit of one agent request (model calls and tool runs)')
  @Transform(toNumber)
  @IsInt()
  @Min(1000)
  AGENT_TIMEOUT_MS = 120_000;

  @ConfigDoc('characters of a tool result fed back to the model')
  @Transform(toNumber)
  @IsInt()
  @Min(500)
  AGENT_TOOL_RESULT_CHARS = 8000;

  /**
   * A run left `resuming` this long (the process continuing it died) is taken over: continued by the
   * scheduler of another process (or failed after AGENT_RESUME_MAX_ATTEMPTS). Keep it above AGENT_TIMEOUT_MS.
   */
  @ConfigDoc(
    'an agent run left `resuming` (its process died) is continued by a scheduler after this long (keep it above `AGENT_TIMEOUT_MS`)',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  AGENT_RESUME_LEASE_SECONDS = 600;

  @ConfigDoc('how often a scheduler looks for agent runs stuck in `resuming`')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  AGENT_RESUME_CHECK_SECONDS = 60;

  @ConfigDoc('takeovers of one agent run before it is marked failed')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  AGENT_RESUME_MAX_ATTEMPTS = 3;

  @ConfigDoc("agent run webhooks (`callback_url`): one attempt's time limit (connect, send, read the answer)")
  @Transform(toNumber)
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  @ConfigDoc('attempts of one webhook delivery (the first included) before it is marked failed')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(50)
  WEBHOOK_MAX_ATTEMPTS = 8;

  @ConfigDoc("the wait before a webhook's second attempt, doubling each time (at most an hour)")
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  WEBHOOK_RETRY_BASE_SECONDS = 30;

  @ConfigDoc(
    'how often a scheduler sends the due webhook retries and takes over deliveries a dead process left',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  WEBHOOK_RETRY_CHECK_SECONDS = 5;

  @ConfigDoc(
    'the blog backend the blog tool assets call ([the blog tools](api-agents.md#the-blog-tools))',
    'unset',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/, { message: 'must be an http(s) base URL without query' })
  BLOG_API_BASE_URL?: string;

  @ConfigDoc(
    "a SearxNG-compatible JSON endpoint for the chat's `WEB_SEARCH` route; unset: the chat never searches the web",
    'unset',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  WEB_SEARCH_URL?: string;

  @ConfigDoc('turns of history the chat sends to the model')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(50)
  CHAT_HISTORY_TURNS = 10;

  @ConfigDoc('searches per chat question')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(10)
  CHAT_MAX_TOOL_CALLS = 3;

  @ConfigDoc('passages per chat search')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(20)
  CHAT_TOP_K = 3;

  /**
   * Relevance floor for the chat's document passages: a hit whose vector-branch cosine similarity is below it is
   * not cited (dropped before the grader). Calibrated with `npm run eval:retrieval -- --calibrate-floor` (see
   * BENCHMARKS.md); 0 turns the floor off.
   */
  @ConfigDoc(
    'the chat does not cite a passage whose vector similarity is below this, unless its keyword score reaches `CHAT_MIN_KEYWORD_RELEVANCE` (calibrated in BENCHMARKS.md; `0` turns it off)',
  )
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  @Max(1)
  CHAT_MIN_RELEVANCE = 0.08;

  /**
   * Keyword evidence for the chat's relevance floor: a passage whose keyword score (BM25 as a share of the whole
   * question's best, terms missing from the corpus included) reaches this is cited whatever its vector similarity.
   * Calibrated with `npm run eval:retrieval -- --calibrate-floor` (BENCHMARKS.md); 0 turns keyword evidence off.
   */
  @ConfigDoc(
    "keyword evidence for the chat's floor: a passage whose keyword score (share of the question's BM25 it matches) reaches this is cited whatever its vector similarity (`0`: vector only)",
  )
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  @Max(1)
  CHAT_MIN_KEYWORD_RELEVANCE = 0.15;

  @ConfigDoc("first backoff delay of the chat's search retries; doubles per retry")
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  CHAT_RETRY_BASE_DELAY_MS = 1000;

  /**
   * Retries of each chat component (the seed's error matrix: router 2, agent 2, grader 1, rewriter 1,
   * search 1-2). The model steps default to LLM_MAX_RETRIES when unset; CHAT_ANSWER_RETRIES covers the
   * search agent's, the answer's and the chitchat's model calls. Search retries back off from
   * CHAT_RETRY_BASE_DELAY_MS.
   */
  @ConfigDoc("retries of the chat's router (the seeds' matrix: 2)", '`LLM_MAX_RETRIES`')
  @Transform(optionalNumber)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  CHAT_ROUTER_RETRIES?: number;

  @ConfigDoc("retries of the chat's grader (the seeds' matrix: 1)", '`LLM_MAX_RETRIES`')
  @Transform(optionalNumber)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  CHAT_GRADER_RETRIES?: number;

  @ConfigDoc("retries of the chat's rewriter (the seeds' matrix: 1)", '`LLM_MAX_RETRIES`')
  @Transform(optionalNumber)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  CHAT_REWRITER_RETRIES?: number;

  @ConfigDoc(
    "retries of the search agent's, the answer's and the chitchat's model calls",
    '`LLM_MAX_RETRIES`',
  )
  @Transform(optionalNumber)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  CHAT_ANSWER_RETRIES?: number;

  @ConfigDoc(
    "retries of the chat's search (the seeds' matrix: 1-2), backing off from `CHAT_RETRY_BASE_DELAY_MS`",
  )
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(10)
  CHAT_SEARCH_RETRIES = 2;

  /**
   * What the chat does when its search tool fails after its retries: `report` answers that it could not
   * search (no model call); `answer_without_tools` (the seed's rule) lets the model answer without search
   * results, saying the search was unavailable (the report is still used when no model is configured).
   */
  @ConfigDoc(
    "`report`: say the search failed; `answer_without_tools`: the seeds' rule, answer without search results and say so",
  )
  @IsIn(['report', 'answer_without_tools'])
  CHAT_ON_SEARCH_ERROR: 'report' | 'answer_without_tools' = 'report';

  /**
   * The chat's internal search and web search through MCP tools (the seed's `vector-search` and
   * `web-search` servers): the registry name `<server>__<tool>` of a read-only tool of a server in
   * MCP_SERVERS. Unset: the document search of this service, and WEB_SEARCH_URL.
   */
  @ConfigDoc(
    "run the chat's document search through an MCP tool of `MCP_SERVERS` (`<server>__<tool>`, e.g. the seeds' `vector-search` server)",
    'unset',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]+__[A-Za-z0-9_.-]+$/, { message: 'must be an MCP tool name <server>__<tool>' })
  CHAT_INTERNAL_SEARCH_MCP_TOOL?: string;

  @ConfigDoc(
    "run the chat's web search through an MCP tool of `MCP_SERVERS` (`<server>__<tool>`, e.g. the seeds' `web-search` server)",
    'unset',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]+__[A-Za-z0-9_.-]+$/, { message: 'must be an MCP tool name <server>__<tool>' })
  CHAT_WEB_SEARCH_MCP_TOOL?: string;
}
