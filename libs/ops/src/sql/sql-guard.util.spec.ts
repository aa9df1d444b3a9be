import {
  checkSqlQuery,
  loadSqlParser,
  SET_RETURNING_FUNCTIONS,
  SOURCE_RELATIONS,
  SQL_FUNCTION_ALLOWLIST,
  SqlGuardError,
} from './sql-guard.util';

function issues(sql: string): string[] {
  try {
    checkSqlQuery(sql);
    return [];
  } catch (error) {
    if (error instanceof SqlGuardError) return error.issues.map((i) => i.message);
    throw error;
  }
}

describe('checkSqlQuery', () => {
  beforeAll(() => loadSqlParser());

  it('binds :name placeholders as numbered parameters, reusing repeated names and leaving casts alone', () => {
    const checked = checkSqlQuery(
      'SELECT name, value::float8 FROM configuration_items WHERE environment = :env AND name <> \':not_a_param\' AND "a:b" > :since AND environment = :env; -- :gone',
      2,
    );
    expect(checked.parameters).toEqual(['env', 'since']);
    expect(checked.text).toBe(
      'SELECT name, value::float8 FROM configuration_items WHERE environment = $2 AND name <> \':not_a_param\' AND "a:b" > $3 AND environment = $2',
    );
  });

  it('accepts CTEs, window functions, aggregates, casts with modifiers and aliases with column lists', () => {
    expect(
      issues(`WITH top(ci_id, v) AS (
        SELECT ci_id, avg(value) FROM metrics WHERE metric_name = :metric GROUP BY ci_id
      ), ranked AS (SELECT ci_id, v, rank() OVER (ORDER BY v DESC) AS r FROM top)
      SELECT c.name, round(r.v::numeric(10, 2), 1), percentile_cont(0.95) WITHIN GROUP (ORDER BY r.v)
      FROM ranked r JOIN configuration_items c ON c.id = r.ci_id, (VALUES (1), (2)) AS g(n)
      WHERE c.tags @> ARRAY['x'] AND 'y' = ANY(c.tags) AND jsonb_array_length(c.attributes -> 'ports') > 0 AND EXISTS (SELECT 1) AND c.status IN ('running') -- trailing comment
      GROUP BY c.name, r.v`),
    ).toEqual([]);
  });

  it('accepts set operations, CTEs referenced from subqueries, DISTINCT, VALUES and CASE', () => {
    expect(
      issues(`WITH envs AS (SELECT DISTINCT environment FROM configuration_items)
      SELECT e.environment, CASE WHEN count(*) > 1 THEN 'many' ELSE 'one' END
      FROM envs e LEFT JOIN (SELECT environment FROM envs) x USING (environment)
      WHERE e.environment IN (SELECT environment FROM envs) AND now() - interval '1 day' < CURRENT_TIMESTAMP
      GROUP BY 1
      UNION ALL SELECT * FROM (VALUES ('a', 'b')) AS v(a, b)`),
    ).toEqual([]);
  });

  it.each([
    // Finding 1 of the attack run: unicode-escaped identifiers spell schemas and catalogs the guard must see.
    ['SELECT * FROM U&"\\0070ublic".document_chunks', /schema-qualified/],
    ['SELECT * FROM U&"\\0070g_authid"', /relation "pg_authid" is not available/],
    ['SELECT key_hash FROM U&"\\0061pi_keys"', /relation "api_keys" is not available/],
    ['SELECT * FROM U&"!0070ublic" UESCAPE \'!\'.api_keys', /schema-qualified/],
    ['SELECT * FROM "PUBLIC".api_keys', /schema-qualified/],
    ['SELECT * FROM pg_hba_file_rules', /relation "pg_hba_file_rules" is not available/],
    ['SELECT * FROM pg_settings', /relation "pg_settings" is not available/],
    ['SELECT * FROM pg_stat_activity', /relation "pg_stat_activity" is not available/],
    ['SELECT * FROM document_chunks', /relation "document_chunks" is not available/],
    ['SELECT * FROM ops_configuration_items', /relation "ops_configuration_items" is not available/],
    ['SELECT (SELECT count(*) FROM api_keys) FROM metrics', /relation "api_keys" is not available/],
    ['SELECT * FROM metrics WHERE EXISTS (SELECT 1 FROM U&"\\0070g_user")', /pg_user/],
    ['SELECT U&"\\0070g_read_file"(\'/etc/passwd\')', /function "pg_read_file"/],
    ["SELECT pg_catalog.pg_read_file('/etc/passwd')", /function "pg_catalog.pg_read_file"/],
    ['SELECT public.anything()', /function "public.anything"/],
    ["SELECT 'pg_authid'::regclass", /type "regclass"/],
    ['SELECT 1::U&"\\0072egclass"', /type "regclass"/],
    ['SELECT current_user', /CURRENT_USER is not allowed/],
    ['SELECT 1 OPERATOR(public.+) 1', /OPERATOR\(public\.\+\)/],
    ['WITH x AS (SELECT 1) SELECT * FROM (WITH pg_authid AS (SELECT 1) SELECT 1) y, pg_authid', /pg_authid/],
    ['SELECT * FROM (WITH a AS (SELECT 1) SELECT 1) s, a', /relation "a" is not available/],
    // Runaway CPU on the embedded database (finding 4): unbounded numeric and text growth.
    ['SELECT power(2::numeric, 100000 + value) FROM metrics', /function "power"/],
    ['SELECT 2::numeric ^ 100000', /operator "\^"/],
    [
      "SELECT replace(replace(name, 'a', 'aaaaaaaa'), 'a', 'aaaaaaaa') FROM configuration_items",
      /function "replace"/,
    ],
    ['SELECT 1' + '0'.repeat(60) + '.5', /numeric literals/],
    ['SELECT 1; DROP TABLE ops_configuration_items', /only one statement/],
    ['DELETE FROM configuration_items', /only a SELECT is allowed \(found DELETE statements\)/],
    [
      'WITH gone AS (DELETE FROM configuration_items RETURNING *) SELECT * FROM gone',
      /DELETE statements is not allowed|DeleteStmt/,
    ],
    ['WITH x AS (UPDATE metrics SET value = 0 RETURNING 1) SELECT 1', /UPDATE statements is not allowed/],
    ['SELECT * INTO copy_table FROM configuration_items', /SELECT INTO is not allowed/],
    ['SELECT * FROM public.ops_configuration_items', /schema-qualified/],
    ['SELECT * FROM "public"."api_keys"', /schema-qualified/],
    ['SELECT * FROM db.public.api_keys', /schema-qualified/],
    ['SELECT * FROM pg_catalog.pg_authid', /schema-qualified/],
    ['SELECT * FROM pg_user', /relation "pg_user"/],
    ['SELECT * FROM information_schema.tables', /schema-qualified/],
    ["SELECT pg_read_file('/etc/passwd')", /function "pg_read_file"/],
    ["SELECT current_setting('data_directory')", /function "current_setting"/],
    ["SELECT set_config('search_path', 'public', true)", /function "set_config"/],
    [
      "SELECT * FROM query_to_xml('select * from public.api_keys', true, true, '')",
      /function "query_to_xml"/,
    ],
    [
      "SELECT a, query_to_xml('select 1', true, true, '') AS x FROM configuration_items",
      /function "query_to_xml"/,
    ],
    ["SELECT lo_import('/etc/passwd')", /function "lo_import"/],
    ['SELECT $1', /positional parameters/],
    ['SELECT * FROM configuration_items FOR UPDATE', /row locking/],
    ["SELECT 'unterminated", /syntax error/],
    ['SELECT (1', /syntax error/],
    ['', /empty/],
    ['-- only a comment', /empty/],
    ['WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r', /RECURSIVE/],
    ['SELECT count(*) FROM generate_series(1, 100000000)', /function "generate_series"/],
    ["SELECT lpad('x', 1000000000)", /function "lpad"/],
    ['SELECT * FROM configuration_items TABLESAMPLE SYSTEM (10)', /RangeTableSample/],
    ['SELECT xmlelement(name x)', /XmlExpr/],
    ['EXPLAIN SELECT 1', /EXPLAIN statements/],
    ['SHOW ALL', /VARIABLE SHOW statements|only a SELECT/],
    ['SET ROLE postgres', /only a SELECT/],
    ["COPY (SELECT 1) TO PROGRAM 'id'", /only a SELECT/],
  ])('refuses %s', (sql, expected) => {
    expect(issues(sql).join('; ')).toMatch(expected);
  });

  describe('row generators (issue 27, finding 1)', () => {
    // The attack: the planner guesses 10 rows for each unnest, so 142 million rows passed the cost cap.
    const ATTACK = `WITH a AS (SELECT array_agg(id) AS ids FROM configuration_items)
      SELECT count(*) FROM a, unnest(a.ids) x, unnest(a.ids) y, unnest(a.ids) z`;

    it.each([
      [ATTACK, 'unnest'],
      [
        'SELECT count(*) FROM (SELECT unnest(array_agg(id)) AS i FROM configuration_items) a, metrics',
        'unnest',
      ],
      ['SELECT count(*) FROM ROWS FROM (pg_catalog.unnest(ARRAY[1, 2]))', 'unnest'],
      [
        'SELECT count(*) FROM configuration_items c, jsonb_array_elements(c.attributes) e',
        'jsonb_array_elements',
      ],
      ['SELECT jsonb_array_elements_text(attributes) FROM configuration_items', 'jsonb_array_elements_text'],
      ['SELECT k FROM configuration_items, jsonb_each(attributes) AS j(k, v)', 'jsonb_each'],
      ['SELECT jsonb_each_text(attributes) FROM configuration_items', 'jsonb_each_text'],
      ['SELECT jsonb_object_keys(attributes) FROM configuration_items', 'jsonb_object_keys'],
      ["SELECT regexp_split_to_table(description, '') FROM configuration_items", 'regexp_split_to_table'],
      ["SELECT count(*) FROM string_to_table(repeat('x', 10), '')", 'string_to_table'],
      ["SELECT regexp_matches(name, '.', 'g') FROM configuration_items", 'regexp_matches'],
      ['SELECT count(*) FROM generate_series(1, 100000000)', 'generate_series'],
      ['SELECT generate_subscripts(tags, 1) FROM configuration_items', 'generate_subscripts'],
      ["SELECT jsonb_path_query(attributes, '$.*') FROM configuration_items", 'jsonb_path_query'],
      ['SELECT * FROM jsonb_to_recordset(\'[{"a":1}]\') AS r(a int)', 'jsonb_to_recordset'],
      ["SELECT * FROM json_each('{}')", 'json_each'],
      [
        'SELECT name FROM configuration_items WHERE EXISTS (SELECT 1 FROM unnest(tags) t, unnest(tags) u)',
        'unnest',
      ],
      ['SELECT ARRAY(SELECT unnest(tags)) FROM configuration_items', 'unnest'],
    ])('refuses %s, naming %s', (sql, name) => {
      expect(issues(sql).join('; ')).toContain(`set-returning function "${name}" is not allowed`);
    });

    it('keeps aggregates and array/jsonb functions that return one value', () => {
      expect(
        issues(`SELECT array_agg(id), array_length(array_agg(id), 1), cardinality(tags), jsonb_agg(attributes),
          jsonb_array_length(attributes -> 'ports'), string_agg(name, ','), count(*) FILTER (WHERE 'x' = ANY(tags))
          FROM configuration_items GROUP BY tags, attributes`),
      ).toEqual([]);
    });

    it('allows no function that returns a set', () => {
      expect([...SQL_FUNCTION_ALLOWLIST].filter((name) => SET_RETURNING_FUNCTIONS.has(name))).toEqual([]);
    });
  });

  it('refuses a query longer than the limit', () => {
    expect(issues('SELECT ' + 'x'.repeat(20_001)).join('; ')).toMatch(/longer than/);
  });

  describe('on a source database', () => {
    const sourceIssues = (sql: string): string[] => {
      try {
        checkSqlQuery(sql, 1, SOURCE_RELATIONS);
        return [];
      } catch (error) {
        if (error instanceof SqlGuardError) return error.issues.map((i) => i.message);
        throw error;
      }
    };

    it("reads any table of the source's schema, numbering parameters from $1", () => {
      const checked = checkSqlQuery(
        'SELECT s.server_id FROM servers s JOIN metrics m USING (server_id) WHERE s.environment = :env',
        1,
        SOURCE_RELATIONS,
      );
      expect(checked).toEqual({
        text: 'SELECT s.server_id FROM servers s JOIN metrics m USING (server_id) WHERE s.environment = $1',
        parameters: ['env'],
      });
    });

    it("refuses PostgreSQL's own catalogs, other schemas, writes and non-allowlisted functions as for the OPS tables", () => {
      expect(sourceIssues('SELECT rolname, rolpassword FROM pg_authid')).toEqual([
        expect.stringContaining("PostgreSQL's own catalogs"),
      ]);
      expect(sourceIssues('SELECT * FROM "PG_CLASS"')).toEqual([
        expect.stringContaining("PostgreSQL's own catalogs"),
      ]);
      expect(sourceIssues('SELECT * FROM information_schema.tables')).toEqual([
        expect.stringContaining('schema-qualified'),
      ]);
      expect(sourceIssues('SELECT * FROM other.servers')).toEqual([
        expect.stringContaining('schema-qualified'),
      ]);
      expect(sourceIssues('DELETE FROM servers')).toEqual([expect.stringContaining('only a SELECT')]);
      expect(sourceIssues('SELECT pg_sleep(10) FROM servers')).toEqual([
        expect.stringContaining('function "pg_sleep" is not allowed'),
      ]);
      expect(sourceIssues('SELECT * FROM servers FOR UPDATE')).toEqual([
        expect.stringContaining('row locking'),
      ]);
    });
  });
});
