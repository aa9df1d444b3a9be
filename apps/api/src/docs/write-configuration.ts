import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withTables } from './configuration-table';

/**
 * `npm run docs:config`: rewrites the key tables of docs/configuration.md from the config classes
 * (the prose around them stays). A unit spec fails while the committed page differs.
 */
const page = path.resolve(process.argv[2] ?? 'docs/configuration.md');
writeFileSync(page, withTables(readFileSync(page, 'utf8')));
process.stdout.write(`${page}: key tables regenerated\n`);
