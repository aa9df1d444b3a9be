// Test-only entry (`@app/code/testing`): what medium tests drive directly to simulate a worker that
// dies mid-diff. Only test/ and bench/ may import it (eslint/boundaries.cjs).
export { CodeDiffsRepository } from './diff/code-diffs.repository';
export { CodeIndexerService } from './indexing/code-indexer.service';
