// Test-only entry (`@app/ops/testing`): what medium tests build directly (a sql tool repository with its
// own limits). Only test/ and bench/ may import it (eslint/boundaries.cjs).
export {
  SqlRowCapExceededError,
  SqlToolBudgetSpentError,
  SqlToolBusyError,
  SqlToolRepository,
  SqlToolSuspendedError,
} from './sql/sql-tool.repository';
export { SET_RETURNING_FUNCTIONS, SQL_FUNCTION_ALLOWLIST } from './sql/sql-guard.util';
export { withRowCounter } from './sql/sql-row-counter.util';
