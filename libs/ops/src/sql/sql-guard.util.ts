import { loadModule, parseSync, scanSync } from 'libpg-query';

/**
 * Checks the query of an `sql` tool asset with PostgreSQL's own parser (libpg-query), so identifiers
 * are judged after the server's normalisation (quoting, case, `U&"\0070..."` unicode escapes), never by
 * their spelling. What passes is one SELECT built only from the node types below, reading only the
 * tenant-scoped OPS relations and its own CTEs, calling only allowlisted functions and casting only to
 * allowlisted types. The executor adds a second wall: a read-only transaction, `search_path =
 * pg_catalog`, the OPS relations shadowed by tenant-filtered CTEs, and a role without table grants.
 */

export interface SqlIssue {
  message: string;
  position: number;
}

export interface CheckedSql {
  /** The query with `:name` replaced by `$n` (numbered from `firstParameter`). */
  text: string;
  /** Input property bound to each `$n`, in order. */
  parameters: string[];
}

export class SqlGuardError extends Error {
  constructor(readonly issues: SqlIssue[]) {
    super(issues.map((i) => `${i.message} (at ${i.position})`).join('; '));
    this.name = 'SqlGuardError';
  }
}

/** The relations an sql tool may read; the executor provides each as a tenant-filtered CTE. */
export const SQL_TOOL_RELATION_NAMES = ['configuration_items', 'metrics', 'history_events', 'ci_relations'];

/**
 * What a query on a registered `source` database may read: any table or view named without a schema
 * (the executor pins `search_path` to the source's schema), never a `pg_` name (PostgreSQL's own
 * catalogs, which an unqualified name would otherwise reach through the implicit pg_catalog).
 */
export const SOURCE_RELATIONS = 'source-schema';
export type SqlRelations = readonly string[] | typeof SOURCE_RELATIONS;

export const SQL_TOOL_MAX_QUERY_LENGTH = 20_000;
const MAX_NUMERIC_LITERAL_DIGITS = 40;

/**
 * Functions whose cost is bounded by their input: no padding or repetition (lpad, repeat), no unbounded
 * numeric growth (power, exp, factorial) and no pattern rewriting that can multiply text (replace,
 * regexp_replace): the embedded database cannot interrupt a running statement, so a query must not be
 * able to burn CPU beyond what its planner cost shows. No set-returning function either (below).
 */
export const SQL_FUNCTION_ALLOWLIST: ReadonlySet<string> = new Set(
  (
    'count sum avg min max stddev stddev_pop stddev_samp variance var_pop var_samp percentile_cont percentile_disc ' +
    'mode array_agg string_agg bool_and bool_or every json_agg jsonb_agg json_object_agg jsonb_object_agg ' +
    'jsonb_build_object json_build_object jsonb_build_array json_build_array to_jsonb to_json jsonb_array_length ' +
    'jsonb_typeof jsonb_extract_path jsonb_extract_path_text abs ceil ceiling floor round trunc sqrt ln log mod ' +
    'sign width_bucket lower upper length char_length substr substring btrim ltrim rtrim concat concat_ws ' +
    'split_part strpos position left right initcap starts_with now date_trunc extract ' +
    'date_part date_bin make_interval make_timestamptz to_char to_timestamp to_date to_number age justify_interval ' +
    'timezone isfinite array_length array_position array_to_string array_remove cardinality ' +
    'row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value'
  ).split(' '),
);

/**
 * Every set-returning function of pg_catalog (`proretset`, PostgreSQL 15 to 18). A row generator makes
 * rows the planner cannot count (it guesses 10 to 100 rows for `unnest(array_agg(...))` whatever the
 * array holds), so a cross join of them passes the plan-cost cap however many rows it makes. They are
 * refused anywhere, by name, before the allowlist; `medium` tests check the allowlist holds none of the
 * server's set-returning functions.
 */
export const SET_RETURNING_FUNCTIONS: ReadonlySet<string> = new Set(
  (
    'unnest generate_series generate_subscripts json_array_elements json_array_elements_text json_each ' +
    'json_each_text json_object_keys json_populate_recordset json_to_recordset jsonb_array_elements ' +
    'jsonb_array_elements_text jsonb_each jsonb_each_text jsonb_object_keys jsonb_path_query ' +
    'jsonb_path_query_tz jsonb_populate_recordset jsonb_to_recordset regexp_matches regexp_split_to_table ' +
    'string_to_table ts_debug ts_parse ts_stat ts_token_type txid_snapshot_xip pg_snapshot_xip aclexplode ' +
    'pg_options_to_table pg_timezone_names pg_timezone_abbrevs pg_timezone_abbrevs_abbrevs ' +
    'pg_timezone_abbrevs_zone pg_get_keywords pg_mcv_list_items pg_partition_tree pg_partition_ancestors ' +
    'pg_ls_dir pg_listening_channels pg_cursor pg_prepared_statement pg_prepared_xact pg_lock_status ' +
    'pg_show_all_settings pg_show_all_file_settings pg_tablespace_databases pg_get_catalog_foreign_keys'
  ).split(' '),
);

/** What to write instead of a row generator, in the refusal. */
const ROW_GENERATOR_HINT = 'use = ANY(array), @>, ?, jsonb_array_length or jsonb_extract_path instead';

const TYPE_ALLOWLIST = new Set(
  (
    'bool boolean int2 int4 int8 smallint integer int bigint float4 float8 real numeric decimal text varchar ' +
    'bpchar char date time timetz timestamp timestamptz interval json jsonb uuid'
  ).split(' '),
);

/** Operators are looked up in pg_catalog only; `^` (power) is left out for the same reason as power(). */
const BLOCKED_OPERATORS = new Set(['^', '||/', '|/', '!', '!!']);

/** CURRENT_DATE and friends; CURRENT_USER, CURRENT_SCHEMA, CURRENT_CATALOG and the like are not data. */
const TIME_VALUE_FUNCTIONS = new Set([
  'SVFOP_CURRENT_DATE',
  'SVFOP_CURRENT_TIME',
  'SVFOP_CURRENT_TIME_N',
  'SVFOP_CURRENT_TIMESTAMP',
  'SVFOP_CURRENT_TIMESTAMP_N',
  'SVFOP_LOCALTIME',
  'SVFOP_LOCALTIME_N',
  'SVFOP_LOCALTIMESTAMP',
  'SVFOP_LOCALTIMESTAMP_N',
]);

/** Node types a read-only query over the OPS relations needs; any other node is refused by name. */
const NODE_ALLOWLIST = new Set([
  'SelectStmt',
  'ResTarget',
  'ColumnRef',
  'A_Star',
  'String',
  'Integer',
  'Float',
  'Boolean',
  'A_Const',
  'A_Expr',
  'BoolExpr',
  'NullTest',
  'BooleanTest',
  'FuncCall',
  'TypeCast',
  'RangeVar',
  'JoinExpr',
  'RangeSubselect',
  'RangeFunction',
  'SubLink',
  'CaseExpr',
  'CaseWhen',
  'CoalesceExpr',
  'MinMaxExpr',
  'SortBy',
  'WindowDef',
  'CommonTableExpr',
  'ParamRef',
  'A_ArrayExpr',
  'A_Indirection',
  'A_Indices',
  'RowExpr',
  'List',
  'GroupingSet',
  'SQLValueFunction',
  'CollateClause',
]);

/** Fields holding names or aliases only, never expressions or relations. */
const INERT_FIELDS = new Set(['alias', 'join_using_alias', 'name', 'funcname', 'fields', 'usingClause']);

let parserLoaded: Promise<void> | null = null;
let parserReady = false;

/** Loads the parser's WebAssembly module once; checkSqlQuery needs it to have resolved. */
export function loadSqlParser(): Promise<void> {
  parserLoaded ??= loadModule().then(() => {
    parserReady = true;
  });
  return parserLoaded;
}

type AstNode = Record<string, unknown>;

interface Scope {
  ctes: Set<string>;
}

class QueryChecker {
  readonly issues: SqlIssue[] = [];

  constructor(private readonly relations: ReadonlySet<string> | typeof SOURCE_RELATIONS) {}

  private issue(message: string, node: unknown): void {
    const location = (node as { location?: number } | null)?.location;
    this.issues.push({ message, position: typeof location === 'number' && location >= 0 ? location : 0 });
  }

  /** Visits a node wrapper (`{ TypeName: {...} }`) or a list of them. */
  visit(value: unknown, scope: Scope): void {
    if (Array.isArray(value)) {
      for (const item of value) this.visit(item, scope);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const entries = Object.entries(value as AstNode);
    if (entries.length === 0) return;
    if (entries.length !== 1 || !/^[A-Z]/.test(entries[0][0])) {
      this.issue('unexpected query structure', value);
      return;
    }
    const [type, body] = entries[0] as [string, AstNode];
    if (!NODE_ALLOWLIST.has(type)) {
      this.issue(`${describeNode(type)} is not allowed`, body);
      return;
    }
    switch (type) {
      case 'SelectStmt':
        return this.selectStmt(body, scope);
      case 'RangeVar':
        return this.rangeVar(body, scope);
      case 'FuncCall':
        this.funcCall(body);
        break;
      case 'TypeCast':
        this.typeName(body.typeName as AstNode);
        this.visit(body.arg, scope);
        return;
      case 'A_Expr':
        this.operator(body);
        break;
      case 'A_Const':
        this.constant(body);
        return;
      case 'ParamRef':
        return; // only ours: a `$n` written in the query is refused while binding :name parameters
      case 'SQLValueFunction':
        if (!TIME_VALUE_FUNCTIONS.has(String(body.op)))
          this.issue(`${String(body.op).replace('SVFOP_', '')} is not allowed`, body);
        return;
      case 'CommonTableExpr':
        this.issue('a WITH clause is only allowed at the start of a query', body);
        return;
      case 'CollateClause':
        this.visit(body.arg, scope);
        return;
    }
    this.children(body, scope);
  }

  /** Visits the fields of a node body: node lists and wrappers, plus the known inline structs. */
  private children(body: AstNode, scope: Scope): void {
    for (const [field, child] of Object.entries(body)) {
      if (child === null || typeof child !== 'object') continue;
      if (INERT_FIELDS.has(field)) continue;
      if (field === 'typeName') this.typeName(child as AstNode);
      else if (field === 'over') this.windowDef(child as AstNode, scope);
      else if (Array.isArray(child) || isWrapper(child)) this.visit(child, scope);
      else this.issue(`unexpected "${field}" clause`, child);
    }
  }

  private selectStmt(body: AstNode, outer: Scope): void {
    if (body.intoClause) this.issue('SELECT INTO is not allowed', body.intoClause);
    if (Array.isArray(body.lockingClause) && body.lockingClause.length)
      this.issue('row locking clauses (FOR UPDATE/SHARE) are not allowed', body);
    const scope: Scope = { ctes: new Set(outer.ctes) };
    const withClause = body.withClause as AstNode | undefined;
    if (withClause) {
      if (withClause.recursive) this.issue('WITH RECURSIVE is not allowed', withClause);
      for (const cte of (withClause.ctes as AstNode[] | undefined) ?? []) {
        const definition = (cte as { CommonTableExpr?: AstNode }).CommonTableExpr;
        if (!definition) {
          this.visit(cte, scope);
          continue;
        }
        const name = String(definition.ctename);
        if (name.startsWith('pg_')) this.issue(`CTE name "${name}" is reserved`, definition);
        if (definition.searchClause || definition.cycleClause)
          this.issue('SEARCH and CYCLE clauses are not allowed', definition);
        this.visit(definition.ctequery, scope);
        scope.ctes.add(name);
      }
    }
    const { withClause: _with, intoClause: _into, lockingClause: _locking, ...rest } = body;
    for (const [field, child] of Object.entries(rest)) {
      if (child === null || typeof child !== 'object') continue;
      if (field === 'larg' || field === 'rarg') this.selectStmt(child as AstNode, scope);
      else if (field === 'windowClause') this.visit(child, scope);
      else if (Array.isArray(child) || isWrapper(child)) this.visit(child, scope);
      else this.issue(`unexpected "${field}" clause`, child);
    }
  }

  private rangeVar(body: AstNode, scope: Scope): void {
    const name = String(body.relname);
    if (body.catalogname || body.schemaname) {
      this.issue(`schema-qualified names are not allowed ("${[body.schemaname, name].join('.')}")`, body);
      return;
    }
    if (scope.ctes.has(name)) return;
    if (this.relations === SOURCE_RELATIONS) {
      if (name.toLowerCase().startsWith('pg_'))
        this.issue(`relation "${name}" is not available (PostgreSQL's own catalogs are never read)`, body);
      return;
    }
    if (!this.relations.has(name))
      this.issue(
        `relation "${name}" is not available (only ${[...this.relations].join(', ')} and the query's own CTEs)`,
        body,
      );
  }

  private funcCall(body: AstNode): void {
    const names = stringList(body.funcname);
    const name = names.at(-1) ?? '';
    const qualified = names.length > 2 || (names.length === 2 && names[0] !== 'pg_catalog');
    if (!qualified && SET_RETURNING_FUNCTIONS.has(name))
      this.issue(
        `set-returning function "${name}" is not allowed: it makes rows the planner cannot count (${ROW_GENERATOR_HINT})`,
        body,
      );
    else if (qualified || !SQL_FUNCTION_ALLOWLIST.has(name))
      this.issue(`function "${names.join('.')}" is not allowed`, body);
  }

  private windowDef(body: AstNode, scope: Scope): void {
    for (const field of ['partitionClause', 'orderClause', 'startOffset', 'endOffset'])
      this.visit(body[field], scope);
  }

  private typeName(typeName: AstNode | undefined): void {
    if (!typeName) return;
    const names = stringList(typeName.names);
    const name = names.at(-1) ?? '';
    const qualified = names.length > 2 || (names.length === 2 && names[0] !== 'pg_catalog');
    if (qualified || !TYPE_ALLOWLIST.has(name))
      this.issue(`type "${names.join('.')}" is not allowed`, typeName);
    if (typeName.setof || typeName.pct_type) this.issue('SETOF and %TYPE are not allowed', typeName);
  }

  private operator(body: AstNode): void {
    const names = stringList(body.name);
    if (names.length > 1) this.issue(`OPERATOR(${names.join('.')}) is not allowed`, body);
    else if (names.length === 1 && BLOCKED_OPERATORS.has(names[0]))
      this.issue(`operator "${names[0]}" is not allowed`, body);
  }

  private constant(body: AstNode): void {
    const float = (body.fval as { fval?: string } | undefined)?.fval;
    if (float && float.replace(/[^0-9]/g, '').length > MAX_NUMERIC_LITERAL_DIGITS)
      this.issue(`numeric literals are limited to ${MAX_NUMERIC_LITERAL_DIGITS} digits`, body);
  }
}

function isWrapper(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && /^[A-Z]/.test(keys[0]);
}

function stringList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => String((item as { String?: { sval?: string } }).String?.sval ?? ''));
}

function describeNode(type: string): string {
  const statement = type.match(/^(\w+?)Stmt$/);
  if (statement) return `${statement[1].replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase()} statements`;
  return `"${type}"`;
}

interface ScannedToken {
  start: number;
  end: number;
  text: string;
}

/** Replaces `:name` (a colon directly followed by a word, not `::`) with `$n`, using the real lexer. */
function bindNamedParameters(
  sql: string,
  firstParameter: number,
  issues: SqlIssue[],
): { text: string; parameters: string[] } {
  const tokens: ScannedToken[] = scanSync(sql).tokens;
  const parameters: string[] = [];
  let text = '';
  let cursor = 0;
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k];
    if (/^\$\d+$/.test(token.text))
      issues.push({ message: 'positional parameters are not allowed; use :name', position: token.start });
    const next = tokens[k + 1];
    if (
      token.text !== ':' ||
      !next ||
      next.start !== token.end ||
      !/^[A-Za-z_][A-Za-z0-9_]*$/.test(next.text)
    )
      continue;
    let index = parameters.indexOf(next.text);
    if (index < 0) index = parameters.push(next.text) - 1;
    text += `${sql.slice(cursor, token.start)}$${index + firstParameter}`;
    cursor = next.end;
    k++;
  }
  return { text: text + sql.slice(cursor), parameters };
}

/** Checks an `sql` tool query; throws SqlGuardError listing every problem. */
export function checkSqlQuery(
  sql: string,
  firstParameter = 1,
  relations: SqlRelations = SQL_TOOL_RELATION_NAMES,
): CheckedSql {
  if (!parserReady) throw new Error('The SQL parser is not loaded yet: await loadSqlParser() first.');
  const issues: SqlIssue[] = [];
  if (!sql.trim()) throw new SqlGuardError([{ message: 'the query is empty', position: 0 }]);
  if (sql.length > SQL_TOOL_MAX_QUERY_LENGTH)
    throw new SqlGuardError([
      { message: `the query is longer than ${SQL_TOOL_MAX_QUERY_LENGTH} characters`, position: 0 },
    ]);
  let bound: CheckedSql;
  let statements: Array<{ stmt?: unknown; stmt_location?: number; stmt_len?: number }>;
  try {
    bound = bindNamedParameters(sql, firstParameter, issues);
    statements = parseSync(bound.text).stmts ?? [];
  } catch (error) {
    const details = (error as { sqlDetails?: { cursorPosition?: number } }).sqlDetails;
    throw new SqlGuardError([
      { message: `syntax error: ${(error as Error).message}`, position: details?.cursorPosition ?? 0 },
    ]);
  }
  if (issues.length) throw new SqlGuardError(issues);
  if (statements.length !== 1)
    throw new SqlGuardError([
      { message: statements.length ? 'only one statement is allowed' : 'the query is empty', position: 0 },
    ]);
  const statement = statements[0].stmt as AstNode;
  if (!statement || !('SelectStmt' in statement)) {
    const type = statement ? Object.keys(statement)[0] : 'empty';
    throw new SqlGuardError([
      { message: `only a SELECT is allowed (found ${describeNode(type)})`, position: 0 },
    ]);
  }
  const checker = new QueryChecker(relations === SOURCE_RELATIONS ? relations : new Set(relations));
  checker.visit(statement, { ctes: new Set() });
  if (checker.issues.length) throw new SqlGuardError(checker.issues);
  const start = statements[0].stmt_location ?? 0;
  const length = statements[0].stmt_len ?? 0;
  const text = length > 0 ? bound.text.slice(start, start + length) : bound.text.slice(start);
  return { text: text.trim(), parameters: bound.parameters };
}
