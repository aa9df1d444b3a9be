// Test-only entry (`@app/ops/testing`): what medium tests build directly (a sql tool repository with its
// own limits). Only test/ and bench/ may import it (eslint/boundaries.cjs).
export { SqlToolRepository, SqlToolSuspendedError } from './sql/sql-tool.repository';
