import { checkSqlQuery, SqlGuardError } from './sql-guard.util';

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
  it('binds :name placeholders as numbered parameters, reusing repeated names and leaving casts alone', () => {
    const checked = checkSqlQuery(
      "SELECT name, value::float8 FROM configuration_items WHERE environment = :env AND name <> ':not_a_param' AND ts > :since AND environment = :env;",
      2,
    );
    expect(checked.parameters).toEqual(['env', 'since']);
    expect(checked.text).toBe(
      "SELECT name, value::float8 FROM configuration_items WHERE environment = $2 AND name <> ':not_a_param' AND ts > $3 AND environment = $2",
    );
  });

  it('accepts CTEs, window functions, aggregates, casts with modifiers and aliases with column lists', () => {
    expect(
      issues(`WITH top(ci_id, v) AS (
        SELECT ci_id, avg(value) FROM metrics WHERE metric_name = :metric GROUP BY ci_id
      ), ranked AS (SELECT ci_id, v, rank() OVER (ORDER BY v DESC) AS r FROM top)
      SELECT c.name, round(r.v::numeric(10, 2), 1), percentile_cont(0.95) WITHIN GROUP (ORDER BY r.v)
      FROM ranked r JOIN configuration_items c ON c.id = r.ci_id, unnest(ARRAY[1, 2]) AS g(n)
      WHERE c.tags @> ARRAY['x'] AND EXISTS (SELECT 1) AND c.status IN ('running') -- trailing comment
      GROUP BY c.name, r.v`),
    ).toEqual([]);
  });

  it.each([
    ['SELECT 1; DROP TABLE ops_configuration_items', /only one statement|DROP/],
    ['DELETE FROM configuration_items', /must start with SELECT/],
    [
      'WITH gone AS (DELETE FROM configuration_items RETURNING *) SELECT * FROM gone',
      /DELETE is not allowed/,
    ],
    ['WITH x AS (UPDATE metrics SET value = 0 RETURNING 1) SELECT 1', /UPDATE is not allowed/],
    ['SELECT * INTO copy_table FROM configuration_items', /INTO is not allowed/],
    ['SELECT * FROM public.ops_configuration_items', /schema-qualified/],
    ['SELECT * FROM "public"."api_keys"', /schema-qualified/],
    ['SELECT * FROM db.public.api_keys', /schema-qualified/],
    ['SELECT * FROM pg_catalog.pg_authid', /system catalog|schema-qualified/],
    ['SELECT * FROM pg_user', /system catalog/],
    ['SELECT * FROM information_schema.tables', /system catalog/],
    ["SELECT pg_read_file('/etc/passwd')", /system catalog/],
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
    ['SELECT $$x$$', /dollar quoting/],
    ["SELECT E'\\x27'", /prefixed literals/],
    ['SELECT 1 /* hidden */', /block comments/],
    ['SELECT * FROM configuration_items FOR UPDATE', /UPDATE|row locking/],
    ["SELECT 'unterminated", /unterminated/],
    ['SELECT (1', /unbalanced/],
    ['', /empty/],
    ['WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r', /RECURSIVE/],
    ['SELECT count(*) FROM generate_series(1, 100000000)', /function "generate_series"/],
    ["SELECT lpad('x', 1000000000)", /function "lpad"/],
  ])('refuses %s', (sql, expected) => {
    expect(issues(sql).join('; ')).toMatch(expected);
  });
});
