export * from './test-backend';
export * from './test-database';
export * from './test-env';
export * from './test-app';
export * from './test-context';
export * from './test-keys';
export * from './processes';
export * from './embeddings-server';
