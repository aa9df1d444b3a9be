import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface DemoRunbook {
  file: string;
  path: string;
  title: string;
  language: 'ko' | 'en';
  content: string;
}

/** Where the demo runbooks (markdown) live: beside this file, in the sources and in `dist/` (the build copies them). */
export const DEMO_RUNBOOKS_DIR = path.join(__dirname, 'runbooks');

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
