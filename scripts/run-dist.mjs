// `npm run cli|mcp|worker`: runs an entry point of dist/ (`node scripts/run-dist.mjs <entry> [args]`,
// the entry relative to dist/), building dist/ first only when the sources changed since the last build
// (scripts/build.mjs --if-stale: a content hash, ~0.1 s). The entry runs in this same process, so the
// check costs no second Node start-up; build messages go to stderr (stdout may carry a protocol).
import { createRequire } from 'node:module';
import path from 'node:path';
import { build, root } from './build.mjs';

const [entry] = process.argv.splice(2, 1);
if (!entry) {
  console.error('usage: node scripts/run-dist.mjs <entry relative to dist/> [args]');
  process.exit(2);
}
try {
  await build({ ifStale: true });
} catch (error) {
  console.error(`build failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
const target = path.join(root, 'dist', entry);
// The entry sees the arguments as if started with `node dist/<entry> [args]`.
process.argv[1] = target;
createRequire(import.meta.url)(target);
