/**
 * Static checks for the query of an `sql` tool asset. Row generators (generate_series, recursive CTEs,
 * padding) are left out because the embedded database cannot interrupt a running statement. The executor also runs the query read-only,
 * with `search_path = pg_catalog` and tenant-filtered stand-ins for the OPS tables; these checks make
 * sure the text cannot step around that: one SELECT, no escapes to other schemas or system
 * catalogs, no function outside a known-harmless list, and values only as `:name` parameters.
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

type TokenKind =
  'word' | 'quoted' | 'string' | 'number' | 'param' | 'op' | 'open' | 'close' | 'comma' | 'dot' | 'semicolon';

interface Token {
  kind: TokenKind;
  value: string;
  position: number;
  end: number;
}

const FORBIDDEN_WORDS = new Set(
  (
    'insert update delete merge truncate drop alter create grant revoke copy call do execute prepare deallocate ' +
    'listen notify unlisten lock vacuum analyze cluster reindex refresh set reset show discard begin commit rollback ' +
    'savepoint release into load import comment checkpoint security owner tablesample recursive'
  ).split(' '),
);

/** Keywords that may stand right before `(` without being a function call. */
const PAREN_KEYWORDS = new Set(
  (
    'select from join lateral where and or not in exists any all some values as on using when then else case ' +
    'by having limit offset union intersect except distinct between like ilike is over filter within group ' +
    'partition cast extract position substring trim overlay coalesce nullif greatest least row array grouping ' +
    'sets rollup cube materialized recursive with return returns'
  ).split(' '),
);

const FUNCTION_ALLOWLIST = new Set(
  (
    'count sum avg min max stddev stddev_pop stddev_samp variance var_pop var_samp percentile_cont percentile_disc ' +
    'mode array_agg string_agg bool_and bool_or every json_agg jsonb_agg json_object_agg jsonb_object_agg ' +
    'jsonb_build_object json_build_object jsonb_build_array json_build_array to_jsonb to_json jsonb_array_length ' +
    'jsonb_array_elements jsonb_array_elements_text jsonb_each jsonb_each_text jsonb_object_keys jsonb_typeof ' +
    'jsonb_extract_path jsonb_extract_path_text abs ceil ceiling floor round trunc sqrt power exp ln log mod sign ' +
    'width_bucket lower upper length char_length substr btrim ltrim rtrim replace concat concat_ws split_part ' +
    'strpos left right initcap starts_with regexp_replace regexp_match regexp_matches now date_trunc ' +
    'date_part date_bin make_interval make_timestamptz to_char to_timestamp to_date to_number age justify_interval ' +
    'timezone isfinite unnest array_length array_position array_to_string array_remove cardinality ' +
    'row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value'
  ).split(' '),
);

const SCHEMA_NAMES = new Set(['public', 'pg_catalog', 'information_schema', 'pg_toast', 'pg_temp']);

function tokenize(sql: string, issues: SqlIssue[]): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (kind: TokenKind, value: string, start: number) =>
    tokens.push({ kind, value, position: start, end: i });
  while (i < sql.length) {
    const c = sql[i];
    const start = i;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      issues.push({ message: 'block comments are not allowed', position: i });
      return tokens;
    } else if (c === "'") {
      i++;
      while (i < sql.length && !(sql[i] === "'" && sql[i + 1] !== "'")) i += sql[i] === "'" ? 2 : 1;
      if (i >= sql.length) issues.push({ message: 'unterminated string literal', position: start });
      i++;
      push('string', sql.slice(start, i), start);
    } else if (c === '"') {
      i++;
      while (i < sql.length && !(sql[i] === '"' && sql[i + 1] !== '"')) i += sql[i] === '"' ? 2 : 1;
      if (i >= sql.length) issues.push({ message: 'unterminated quoted identifier', position: start });
      i++;
      push('quoted', sql.slice(start + 1, i - 1).replace(/""/g, '"'), start);
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < sql.length && /[A-Za-z0-9_]/.test(sql[i])) i++;
      const word = sql.slice(start, i);
      if (sql[i] === "'" || (sql[i] === '&' && sql[i + 1] === "'") || sql[i] === '$')
        issues.push({
          message: `"${word}" prefixed literals and "$" in names are not allowed`,
          position: start,
        });
      push('word', word.toLowerCase(), start);
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      while (i < sql.length && /[0-9.eE]/.test(sql[i])) i++;
      push('number', sql.slice(start, i), start);
    } else if (c === ':' && sql[i + 1] === ':') {
      i += 2;
      push('op', '::', start);
    } else if (c === ':' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      i++;
      while (i < sql.length && /[A-Za-z0-9_]/.test(sql[i])) i++;
      push('param', sql.slice(start + 1, i), start);
    } else if (c === '$') {
      issues.push({
        message: 'positional parameters and dollar quoting are not allowed; use :name',
        position: i,
      });
      return tokens;
    } else if (c === '(' || c === ')' || c === ',' || c === '.' || c === ';') {
      i++;
      push(
        c === '(' ? 'open' : c === ')' ? 'close' : c === ',' ? 'comma' : c === '.' ? 'dot' : 'semicolon',
        c,
        start,
      );
    } else if (c === '\\') {
      issues.push({ message: 'backslashes are not allowed outside string literals', position: i });
      return tokens;
    } else {
      while (
        i < sql.length &&
        /[+\-*/<>=~!@#%^&|`?[\]{}]/.test(sql[i]) &&
        !(sql[i] === '-' && sql[i + 1] === '-')
      )
        i++;
      if (i === start) i++;
      push('op', sql.slice(start, i), start);
    }
  }
  return tokens;
}

const isName = (t: Token | undefined): t is Token => t?.kind === 'word' || t?.kind === 'quoted';

/** Checks an `sql` tool query; throws SqlGuardError listing every problem. */
export function checkSqlQuery(sql: string, firstParameter = 1): CheckedSql {
  const issues: SqlIssue[] = [];
  const tokens = tokenize(sql, issues);
  if (tokens.at(-1)?.kind === 'semicolon') tokens.pop();
  if (!tokens.length) issues.push({ message: 'the query is empty', position: 0 });
  else if (!(tokens[0].kind === 'word' && (tokens[0].value === 'select' || tokens[0].value === 'with')))
    issues.push({ message: 'the query must start with SELECT or WITH', position: tokens[0].position });

  let depth = 0;
  let mainSelectSeen = tokens[0]?.value === 'select';
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k];
    const previous = tokens[k - 1];
    const next = tokens[k + 1];
    if (token.kind === 'open') depth++;
    if (token.kind === 'close') depth--;
    if (depth < 0) issues.push({ message: 'unbalanced parentheses', position: token.position });
    if (token.kind === 'semicolon')
      issues.push({ message: 'only one statement is allowed', position: token.position });
    if (token.kind === 'word' && token.value === 'select' && depth === 0) mainSelectSeen = true;
    if (!isName(token)) continue;
    const lower = token.value.toLowerCase();
    if (token.kind === 'word' && FORBIDDEN_WORDS.has(lower))
      issues.push({
        message: `${lower.toUpperCase()} is not allowed in a read-only query`,
        position: token.position,
      });
    if (
      token.kind === 'word' &&
      lower === 'for' &&
      ['update', 'share', 'no', 'key'].includes(next?.value ?? '')
    )
      issues.push({ message: 'row locking clauses are not allowed', position: token.position });
    if (lower.startsWith('pg_') || lower === 'information_schema')
      issues.push({ message: `system catalog "${token.value}" is not allowed`, position: token.position });
    if (
      next?.kind === 'dot' &&
      (SCHEMA_NAMES.has(lower) || (isName(tokens[k + 2]) && tokens[k + 3]?.kind === 'dot'))
    )
      issues.push({ message: 'schema-qualified names are not allowed', position: token.position });
    if (next?.kind === 'open') {
      const keyword = token.kind === 'word' && PAREN_KEYWORDS.has(lower);
      const typeModifier = previous?.value === '::' || previous?.value === 'as';
      const cteColumns = depth === 0 && !mainSelectSeen;
      if (!keyword && !typeModifier && !cteColumns && !FUNCTION_ALLOWLIST.has(lower))
        issues.push({ message: `function "${token.value}" is not allowed`, position: token.position });
    }
  }
  if (depth !== 0) issues.push({ message: 'unbalanced parentheses', position: sql.length });
  if (issues.length) throw new SqlGuardError(issues);

  const parameters: string[] = [];
  let text = '';
  let cursor = 0;
  for (const token of tokens) {
    if (token.kind !== 'param') continue;
    let index = parameters.indexOf(token.value);
    if (index < 0) index = parameters.push(token.value) - 1;
    text += `${sql.slice(cursor, token.position)}$${index + firstParameter}`;
    cursor = token.end;
  }
  text += sql.slice(cursor, tokens.length ? tokens.at(-1)!.end : 0);
  return { text, parameters };
}
