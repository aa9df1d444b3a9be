// Test-only entry (`@app/documents/testing`): the repositories medium tests inspect directly, and fixtures
// tests and benches share (a large docx). Only
// test/ and bench/ may import it (eslint/boundaries.cjs); libraries and apps use `@app/documents`.
export { ChunksRepository } from './ingestion/chunks.repository';
export { SearchRepository } from './search/search.repository';
export { DocumentsScheduler } from './ingestion/documents.scheduler';
export { JobsRepository } from './ingestion/jobs.repository';
export { toKeywordQuery } from './text/search-text.util';
export { HashEmbeddingProvider } from './embedding/hash-embedding.provider';
export { makeLargeDocx } from './testing/large-docx';
export { BulkSegmentsRepository } from './ingestion/bulk-segments.repository';
export { modelIndexName } from './ingestion/chunks.repository';
