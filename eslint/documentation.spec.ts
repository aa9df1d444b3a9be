import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describeConfig } from '@app/platform/config';
import { CONFIG_SCHEMAS } from '../apps/api/src/config-schemas';
import { configurationTables, withTables } from '../apps/api/src/docs/configuration-table';
import { DOCUMENTATION_PAGES, extractExamples } from '../test/support/readme-examples';

// The documentation as a reader meets it: README.md, the reference pages under docs/ and ARCHITECTURE.md.
// Every relative link leads to a file that exists (and to a heading of it, when it names one), and every
// shell example takes the server and the key from the environment instead of writing them out.
const ROOT = path.join(__dirname, '..');
const DOCS = readdirSync(path.join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const LINKED_PAGES = ['README.md', 'ARCHITECTURE.md', ...DOCS];

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The markdown outside fenced code blocks and inline code spans (links there are not links). */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```\s*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (not `-` or `_`), spaces as `-`. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of markdown
    .replace(/^```[^\n]*\n[\s\S]*?^```\s*$/gm, '')
    .matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingAnchor(match[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every relative link of a page that does not resolve: `file:target (why)`. */
function brokenLinks(file: string, markdown = read(file)): string[] {
  const broken: string[] = [];
  for (const match of prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [pathPart, anchor] = target.split('#', 2);
    const resolved = pathPart ? path.normalize(path.join(path.dirname(file), pathPart)) : file;
    if (!existsSync(path.join(ROOT, resolved))) {
      broken.push(`${file}: ${target} (no file ${resolved})`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!resolved.endsWith('.md') || statSync(path.join(ROOT, resolved)).isDirectory()) {
      broken.push(`${file}: ${target} (an anchor into a file that is not markdown)`);
      continue;
    }
    if (!anchorsOf(read(resolved)).has(decodeURIComponent(anchor)))
      broken.push(`${file}: ${target} (${resolved} has no heading #${anchor})`);
  }
  return broken;
}

describe('documentation links', () => {
  it('computes anchors as GitHub does', () => {
    expect(headingAnchor('1. Search documents')).toBe('1-search-documents');
    expect(headingAnchor('What `min_relevance` means')).toBe('what-min_relevance-means');
    expect(headingAnchor('Streaming (server-sent events)')).toBe('streaming-server-sent-events');
    expect([...anchorsOf('# A\n```bash\n# not a heading\n```\n## A\n')]).toEqual(['a', 'a-1']);
  });

  it('reports a link to a missing file or heading, not one in code', () => {
    const page = [
      '[a](docs/nope.md) [b](docs/configuration.md#nope) [c](#quick-start) [d](docs/operations.md#production-database-roles)',
      '[e](https://example.com/x) `[f](docs/gone.md)`',
      '```bash\necho "[g](docs/gone.md)"\n```',
    ].join('\n');
    expect(brokenLinks('README.md', page)).toEqual([
      'README.md: docs/nope.md (no file docs/nope.md)',
      'README.md: docs/configuration.md#nope (docs/configuration.md has no heading #nope)',
    ]);
  });

  it.each(LINKED_PAGES)('every relative link of %s resolves', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  it('gives every configuration key a meaning in its config class', () => {
    const undocumented = CONFIG_SCHEMAS.flatMap((schema) =>
      describeConfig(schema)
        .filter((key) => !key.meaning)
        .map((key) => `${schema.name}.${key.key}`),
    );
    expect(undocumented).toEqual([]);
  });

  it('shows the key tables the config classes give (regenerate with npm run docs:config)', () => {
    const page = read('docs/configuration.md');
    expect(configurationTables().split('\n').length).toBeGreaterThan(150);
    expect(page).toBe(withTables(page));
  });
});

describe('documentation examples', () => {
  it('runs every page under docs/, in a defined order, after the README', () => {
    expect(DOCUMENTATION_PAGES[0]).toBe('README.md');
    expect([...DOCUMENTATION_PAGES].slice(1).sort()).toEqual([...DOCS].sort());
  });

  const examples = DOCUMENTATION_PAGES.flatMap((page) => extractExamples(read(page), page));

  it.each(examples.map((example) => [`${example.file}:${example.line}`, example.code]))(
    '%s takes the server and the key from OPS_URL and OPS_KEY, and shows no key',
    (_where, code) => {
      const problems: string[] = [];
      // The quick start's `export OPS_URL=${OPS_URL:-http://localhost:3000}` is the one place the default is written.
      if (
        code
          .replaceAll('${OPS_URL:-http://localhost:3000}', '')
          .match(/https?:\/\/(localhost|127\.0\.0\.1):3000/)
      )
        problems.push('writes the server URL out instead of $OPS_URL');
      // npm echoes its command line: a key there is on screen (the CLI reads OPS_KEY itself).
      if (/--api-key\b/.test(code)) problems.push('passes --api-key on a command line');
      if (/\b(echo|printf)\b[^\n|]*\$\{?(OPS_KEY|OPS_API_KEY|ADMIN_API_KEY|CI_KEY)\b/.test(code))
        problems.push('prints a key');
      expect(problems).toEqual([]);
    },
  );
});
