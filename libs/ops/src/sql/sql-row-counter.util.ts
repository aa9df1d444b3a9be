import { parseSync, scanSync } from 'libpg-query';
import { SqlGuardError } from './sql-guard.util';

/**
 * The executor's own row count, enforced while the query runs. Every SELECT level of a checked query
 * that reads a FROM clause gets `nextval(counter) IS NOT NULL` as the first conjunct of its WHERE:
 * a volatile condition without columns is evaluated at that level's top join, once per row the join
 * makes (for a scan: once per row read), before the level's own conditions of equal cost. The
 * executor repeats it in every rescan (a correlated subquery, a nested loop's inner side). The
 * counter is a temporary sequence set to `max - cap` before the query, so the (cap + 1)th row fails
 * the statement with 2200H; the sequence is temporary, so nextval works in the read-only transaction.
 */
export const SQL_ROW_COUNTER = 'pg_temp.ops_sql_tool_rows';
export const SQL_ROW_COUNTER_MAX = '9223372036854775807';
const TICK = `pg_catalog.nextval('${SQL_ROW_COUNTER}') IS NOT NULL`;

/** Keywords that end a SELECT's FROM/WHERE part at its own parenthesis depth. */
const CLAUSE_ENDS = new Set(['HAVING', 'WINDOW', 'LIMIT', 'OFFSET', 'FOR', 'UNION', 'INTERSECT', 'EXCEPT']);

interface Token {
  start: number;
  end: number;
  text: string;
  keywordKind: number;
}

interface SelectPart {
  from: boolean;
  whereEnd?: number;
  ended: boolean;
}

type AstNode = Record<string, unknown>;

/** Adds the row counter to a query `checkSqlQuery` accepted; refuses (SqlGuardError) what it cannot place. */
export function withRowCounter(text: string): string {
  const tokens = scanSync(text).tokens as Token[];
  const keyword = (k: number) =>
    tokens[k] && tokens[k].keywordKind !== 0 ? tokens[k].text.toUpperCase() : undefined;
  const inserts: Array<{ at: number; text: string }> = [];
  const frames: Array<{ select?: SelectPart }> = [{}];
  const end = (frame: { select?: SelectPart }, at: number) => {
    const select = frame.select;
    if (!select || select.ended) return;
    select.ended = true;
    if (!select.from) return;
    if (select.whereEnd === undefined) inserts.push({ at, text: ` WHERE ${TICK} ` });
    else inserts.push({ at: select.whereEnd, text: ` ${TICK} AND (` }, { at, text: ') ' });
  };
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k];
    const frame = frames[frames.length - 1];
    if (token.text === '(') frames.push({});
    else if (token.text === ')') {
      end(frame, token.start);
      if (frames.length > 1) frames.pop();
    } else {
      const word = keyword(k);
      if (word === 'SELECT') {
        end(frame, token.start);
        frame.select = { from: false, ended: false };
      } else if (!frame.select || frame.select.ended) continue;
      else if (word === 'FROM') {
        const distinctFrom =
          keyword(k - 1) === 'DISTINCT' && (keyword(k - 2) === 'IS' || keyword(k - 2) === 'NOT');
        if (!distinctFrom) frame.select.from = true;
      } else if (word === 'WHERE' && frame.select.from) frame.select.whereEnd = token.end;
      else if (
        (word && CLAUSE_ENDS.has(word)) ||
        ((word === 'GROUP' || word === 'ORDER') && keyword(k + 1) === 'BY') ||
        (word === 'FETCH' && (keyword(k + 1) === 'FIRST' || keyword(k + 1) === 'NEXT'))
      )
        end(frame, token.start);
    }
  }
  end(frames[0], text.length);
  let counted = text;
  for (const insert of inserts.sort((a, b) => b.at - a.at))
    counted = counted.slice(0, insert.at) + insert.text + counted.slice(insert.at);
  if (!sameQueryWithoutCounter(text, counted))
    throw new SqlGuardError([
      {
        message: 'the query could not be given its row counter; simplify its FROM and WHERE clauses',
        position: 0,
      },
    ]);
  return counted;
}

/** True when `counted` parses to `original` plus exactly one counter in front of each FROM level's WHERE. */
function sameQueryWithoutCounter(original: string, counted: string): boolean {
  let parsed: unknown;
  try {
    parsed = parseSync(counted);
  } catch {
    return false;
  }
  const tick = JSON.stringify(withoutLocations(tickNode()));
  const restoreSelect = (select: AstNode) => {
    if (!select.fromClause) return;
    const where = select.whereClause as AstNode | undefined;
    const and = where?.BoolExpr as AstNode | undefined;
    const args = and?.boolop === 'AND_EXPR' ? (and.args as unknown[]) : undefined;
    if (JSON.stringify(where) === tick) delete select.whereClause;
    else if (args?.length === 2 && JSON.stringify(args[0]) === tick) select.whereClause = args[1];
    else select.whereClause = { MissingRowCounter: {} };
  };
  const restore = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(restore);
    if (value === null || typeof value !== 'object') return value;
    const node = Object.fromEntries(Object.entries(value as AstNode).map(([k, v]) => [k, restore(v)]));
    // A set operation's arms are SelectStmt bodies without the wrapper.
    for (const key of ['SelectStmt', 'larg', 'rarg'])
      if (node[key] && typeof node[key] === 'object') restoreSelect(node[key] as AstNode);
    return node;
  };
  const expected = JSON.stringify(withoutLocations(parseSync(original)));
  return JSON.stringify(restore(withoutLocations(parsed))) === expected;
}

function tickNode(): unknown {
  const statement = parseSync(`SELECT ${TICK}`).stmts?.[0]?.stmt as { SelectStmt: { targetList: AstNode[] } };
  return (statement.SelectStmt.targetList[0].ResTarget as AstNode).val;
}

function withoutLocations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLocations);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as AstNode)
      .filter(([key]) => key !== 'location' && key !== 'stmt_location' && key !== 'stmt_len')
      .map(([key, child]) => [key, withoutLocations(child)]),
  );
}
