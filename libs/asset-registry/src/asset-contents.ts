/**
 * The content shapes of the asset types other modules read. The asset registry validates them with
 * JSON Schemas on save; the tool registry, the planner and the agents consume them as typed here.
 */

/** A column of a catalog table. `enum_values` lists the values worth knowing (e.g. prod|staging|dev). */
export interface CatalogColumn {
  name: string;
  type: string;
  description?: string | null;
  nullable?: boolean;
  primary_key?: boolean;
  enum_values?: string[] | null;
  /** Other names users say for this column (Korean and English), used by planners to match filters. */
  aliases?: string[];
}

export interface CatalogTable {
  name: string;
  description?: string | null;
  /** What users call a row of the table (Korean and English): the planner reads them as the item nouns. */
  aliases?: string[];
  primary_key?: string[];
  columns: CatalogColumn[];
  /** Foreign keys: this table's columns -> another table's columns. */
  references?: Array<{ columns: string[]; table: string; referenced_columns: string[] }>;
}

/**
 * The `source_ref` of the service's own OPS tables (what the built-in OPS tools and `sql` tools read).
 * Its catalog is the published catalog named `ops` (INTERNAL_CATALOG_NAME). Every other `source_ref` is
 * the name of a published `source` asset, whose catalog is the published catalog with
 * `content.source = { kind: "source_asset", name: <source> }` (what catalog sync from that source writes).
 */
/** Tool names (and so a tool asset's, or a query's, which runs as a tool of its name): LLM function names. */
export const TOOL_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export const INTERNAL_SOURCE_REF = 'internal';
export const INTERNAL_CATALOG_NAME = 'ops';

export interface CatalogContent {
  /** Where the tables live: the internal database (`internal`) or a named source asset. */
  source: { kind: 'internal' | 'source_asset'; name?: string; schema?: string; synced_at?: string };
  tables: CatalogTable[];
}

/**
 * Keyword -> value mappings (e.g. "CPU 사용률" -> metric `cpu_usage`, "운영" -> environment `prod`).
 * `kind` says what the value is: a metric name, a filter value for `field`, a tool name, or other.
 */
export interface KeywordMapping {
  keyword: string;
  value: string;
  kind: 'metric' | 'filter' | 'tool' | 'aggregation' | 'other';
  field?: string;
  description?: string;
}

/**
 * Descriptions a `tool` mapping can carry that change how the fallback planner reads its keyword:
 * it names what the tool returns ("runbook": a one-part question naming it asks for that tool alone), or
 * a field of the item record ("spec", "owner": the question is about the item, not its measurements).
 */
export const TOOL_OUTPUT_NOUN = 'names what the tool returns';
export const ITEM_RECORD_FIELD = 'names a field of the item record (spec, owner, description)';

/**
 * A question labelled with the tools that answer it (none: `[]`), as a tenant's admin or evaluation writes
 * it: what the planner without a language model learns which tools a question needs from.
 */
export interface PlanningExample {
  text: string;
  tools: string[];
}

export interface MappingContent {
  mappings: KeywordMapping[];
  /** Labelled questions of this tenant (planning knowledge as data; the OPS demo publishes its own). */
  examples?: PlanningExample[];
}

/** Texts per language (`{ "ko": [...], "en": [...] }`) or one list whose language is read from each text. */
export type HintTexts = string[] | Record<string, string[]>;

/**
 * What a tool's owner tells the planner about when to use it, beside its description and input schema
 * (all optional; most tools carry none): questions it answers, words that point at it, and questions that
 * look related but that it does not answer.
 */
export interface PlanningHints {
  examples?: HintTexts;
  keywords?: HintTexts;
  not_for?: HintTexts;
  /** The plan's `intent` when this tool leads it (default `use_<tool>`). */
  intent?: string;
}

/** Every text of a hint field, whatever its shape. */
export function hintTexts(texts: HintTexts | undefined): string[] {
  if (!texts) return [];
  const list = Array.isArray(texts) ? texts : Object.values(texts).flat();
  return list.filter((text): text is string => typeof text === 'string' && text.trim().length > 0);
}

export interface PromptContent {
  scope: string;
  engine: string;
  template: string;
  input_schema?: Record<string, unknown> | null;
  output_contract?: Record<string, unknown> | null;
}

/** Limits and switches read by the modules they govern (e.g. `planner_budget`, `tool_access`). */
export interface PolicyContent {
  policy_type: string;
  settings: Record<string, unknown>;
}

/** One entry of a `tool_access` policy: applies to the tool it names, or to the names a `*` pattern matches. */
export interface ToolAccessRule {
  /** Roles that may run the tool (a role satisfies those below it: admin > operator > reader). */
  roles?: Array<'reader' | 'operator' | 'admin' | 'service'>;
  /** Run only once a person confirmed (the pending-action flow), even when the tool has no side effects. */
  requires_confirmation?: boolean;
  rate_per_minute?: number;
  max_concurrent?: number;
}

/** `policy_type: "tool_access"`: the settings the tool registry enforces for every caller. */
export interface ToolAccessSettings {
  tools: Record<string, ToolAccessRule>;
}

/**
 * A database other than the service's own, for catalog sync. Credentials are never stored: `url_ref`
 * and `password_ref` name a secret of the tenant (`secret:<NAME>`) or an environment variable the
 * operator granted to the tenant (`env:OPS_SECRET_<NAME>`, SECRET_ENV_GRANTS).
 */
export interface SourceContent {
  kind: 'postgres';
  connection: {
    url_ref?: string;
    host?: string;
    port?: number;
    database?: string;
    user?: string;
    password_ref?: string;
    ssl?: boolean;
  };
  schema?: string;
}

/** Resolves what users call things to canonical values (e.g. "결제서버" -> ci_code `SRV-PAY-01`). */
export interface ResolverRule {
  match_type: 'exact' | 'prefix' | 'contains' | 'regex';
  pattern: string;
  field: string;
  value: string;
  description?: string;
}

export interface ResolverContent {
  rules: ResolverRule[];
}

export interface ScreenComponent {
  id: string;
  type: string;
  props?: Record<string, unknown>;
}

/** A UI screen definition rendered by clients (title, layout and components bound to tools). */
export interface ScreenContent {
  title?: string;
  layout?: Record<string, unknown>;
  components: ScreenComponent[];
}

/** The fields of a query asset: at least one of SQL, Cypher or an HTTP request. */
export interface QueryAssetFields {
  query_sql?: string | null;
  query_cypher?: string | null;
  query_http?: Record<string, unknown> | null;
  query_params?: Record<string, unknown> | null;
  query_metadata?: Record<string, unknown> | null;
}

/**
 * The kind of runnable tool built from a published asset: a tool asset's `tool_type` (one the tools lib's
 * `ToolKindRegistry` holds: `http`, `sql`, ...), or `query` for a published query asset (the query
 * registry), which runs its SQL or HTTP request as a tool.
 */
export type ToolKindName = string;

/**
 * A query asset as a tool's config. `query_metadata` may carry `row_limit`, `timeout_ms`,
 * `has_side_effects`, `output_schema` and `sample_input` (the publish-time dry run's input).
 */
export interface QueryToolConfig {
  query_sql: string | null;
  query_cypher: string | null;
  query_http:
    | (Pick<HttpToolConfig, 'method' | 'url' | 'headers' | 'body'> &
        Partial<Omit<HttpToolConfig, 'method' | 'url' | 'headers' | 'body'>>)
    | null;
  query_metadata: Record<string, unknown>;
}

/**
 * `http` tool config. Templates use `{{input.<path>}}`, `{{context.user_id}}`, `{{context.tenant_id}}`
 * and `{{secret}}` (the resolved `secret_ref`); values are URL-encoded inside `url`.
 */
export interface HttpToolConfig {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** JSON body template: strings may hold placeholders; a string that is exactly one placeholder keeps the value's type. */
  body?: unknown;
  /**
   * `secret:<NAME>` (the calling tenant's secret store) or `env:OPS_SECRET_<NAME>` (an environment
   * variable granted to the tenant by SECRET_ENV_GRANTS): resolved at call time, never stored in the asset.
   */
  secret_ref?: string | null;
  /** Output field -> dot path into the JSON response (`data.items`, `items.0.id`); absent: whole body. */
  response_mapping?: Record<string, string> | null;
  timeout_ms?: number;
  max_response_bytes?: number;
}

/** `sql` tool config: one read-only SELECT over the OPS data with `:name` parameters bound from input. */
export interface SqlToolConfig {
  query: string;
  row_limit?: number;
  timeout_ms?: number;
}

/**
 * The tool-specific fields of a tool asset as the code reads them (`toToolSpec`): stored on the asset and in
 * each version snapshot under the same names, except the kind, stored and sent as `tool_type`.
 */
export interface ToolAssetSpec {
  name: string;
  description: string;
  kind: ToolKindName;
  tool_config: HttpToolConfig | SqlToolConfig | QueryToolConfig;
  tool_input_schema: Record<string, unknown>;
  tool_output_schema: Record<string, unknown> | null;
  /** Optional example input: publishing runs the tool with it once (a dry run) and records the outcome. */
  sample_input?: Record<string, unknown> | null;
  has_side_effects?: boolean;
  timeout_ms?: number;
  /** The data source the tool reads: `internal` or a published `source` asset's name (absent: none declared). */
  source_ref?: string | null;
  /** Optional hints for the planner (examples, keywords, not_for). */
  planning_hints?: PlanningHints | null;
}

export interface ToolDryRunOutcome {
  status: 'passed' | 'failed' | 'skipped';
  output?: unknown;
  error?: string | null;
  execution_time_ms?: number;
}

/** A problem with a tool asset's config found by building the tool; `path` is a JSON pointer into the spec. */
export interface ToolConfigIssue {
  path: string;
  message: string;
}

/**
 * Port implemented by the tools library (it knows how to build and run a tool asset) and registered
 * with `ToolDryRunnerPort` on init. The registry calls it, when registered, to refuse a tool that
 * cannot be built and to dry-run a tool asset's `sample_input` at publish time.
 */
export abstract class ToolAssetDryRunner {
  /** Everything that keeps the spec from becoming a working tool; empty when it builds (or cannot be checked). */
  configIssues(_spec: ToolAssetSpec): ToolConfigIssue[] {
    return [];
  }

  abstract dryRun(
    tenantId: string,
    spec: ToolAssetSpec,
    sampleInput: Record<string, unknown>,
  ): Promise<ToolDryRunOutcome>;
}
