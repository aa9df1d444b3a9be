import { checkSqlQuery, loadSqlParser, SqlGuardError } from './sql-guard.util';
import { withRowCounter } from './sql-row-counter.util';

const TICK = "pg_catalog.nextval('pg_temp.ops_sql_tool_rows') IS NOT NULL";
const counters = (sql: string) => withRowCounter(checkSqlQuery(sql).text).split(TICK).length - 1;

describe('withRowCounter', () => {
  beforeAll(() => loadSqlParser());

  it('puts the counter first in the WHERE of every level that reads a FROM clause', () => {
    expect(withRowCounter('SELECT count(*) FROM metrics a, metrics b')).toBe(
      `SELECT count(*) FROM metrics a, metrics b WHERE ${TICK} `,
    );
    expect(withRowCounter('SELECT name FROM configuration_items WHERE a = 1 OR b = 2 ORDER BY name')).toBe(
      `SELECT name FROM configuration_items WHERE ${TICK} AND ( a = 1 OR b = 2 ) ORDER BY name`,
    );
  });

  it.each([
    ['SELECT 1', 0],
    ['SELECT 1 WHERE true', 0],
    ["SELECT * FROM (VALUES (1, 'a')) v(n, s)", 1],
    [
      `WITH top AS (SELECT ci_id, avg(value) AS v FROM metrics WHERE metric_name = :m GROUP BY ci_id)
       SELECT c.name, t.v FROM top t JOIN configuration_items c ON c.id = t.ci_id
       WHERE c.name IS DISTINCT FROM 'x' AND EXISTS (SELECT 1 FROM history_events h WHERE h.ci_id = c.id)
       ORDER BY t.v DESC LIMIT 5`,
      3,
    ],
    [
      `SELECT extract(epoch FROM ts), substring(name FROM 1 FOR 2), count(*) FILTER (WHERE value > 1),
         percentile_cont(0.5) WITHIN GROUP (ORDER BY value)
       FROM metrics m JOIN configuration_items c ON c.id = m.ci_id GROUP BY 1, 2 HAVING count(*) > 1`,
      1,
    ],
    [
      `SELECT name FROM configuration_items WHERE status = 'a' UNION ALL
       (SELECT name FROM configuration_items ORDER BY 1 LIMIT 1) EXCEPT SELECT 'x' FROM metrics FETCH FIRST 3 ROWS ONLY`,
      3,
    ],
    ['SELECT (SELECT max(value) FROM metrics m WHERE m.ci_id = c.id) FROM configuration_items c', 2],
    ['SELECT * FROM (SELECT * FROM (SELECT id FROM configuration_items) a) b', 3],
  ])('%s gets %i counters', (sql, expected) => {
    expect(counters(sql)).toBe(expected);
  });

  it('refuses a query it cannot place the counter in rather than running it uncounted', () => {
    expect(() => withRowCounter('SELECT 1 FROM metrics WHERE (a > 1')).toThrow(SqlGuardError);
    expect(() => withRowCounter('SELECT 1 FROM metrics a, LATERAL (SELECT 1) b ORDER BY 1')).not.toThrow();
  });
});
