import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface DemoRunbook {
  file: string;
  path: string;
  title: string;
  language: 'ko' | 'en';
  content: string;
}

/**
 * Where the demo runbooks (markdown) live. The build compiles only TypeScript, so from `dist/` this
 * points back at the source folder.
 */
export const DEMO_RUNBOOKS_DIR =
  [
    path.join(__dirname, 'runbooks'),
    path.resolve(__dirname, '../../../../../libs/tools/src/demo/runbooks'),
    path.resolve(process.cwd(), 'libs/tools/src/demo/runbooks'),
  ].find((dir) => existsSync(dir)) ?? path.join(__dirname, 'runbooks');

/** The demo runbooks, for the document store to ingest into the demo tenant. */
export function listDemoRunbooks(): DemoRunbook[] {
  if (!existsSync(DEMO_RUNBOOKS_DIR)) return [];
  return readdirSync(DEMO_RUNBOOKS_DIR)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => {
      const full = path.join(DEMO_RUNBOOKS_DIR, file);
      const content = readFileSync(full, 'utf8');
      return {
        file,
        path: full,
        title: /^#\s+(.+)$/m.exec(content)?.[1].trim() ?? file,
        language: file.endsWith('.ko.md') ? 'ko' : 'en',
        content,
      };
    });
}
