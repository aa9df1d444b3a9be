import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDist, runNode, testBackend } from '@test/support';

const CLI = 'dist/apps/api/src/cli/main.js';

async function cli(env: Record<string, string>, ...args: string[]) {
  const proc = runNode(CLI, { LOG_LEVEL: 'error', ...env }, args);
  const code = await proc.exited;
  return { code, output: proc.output() };
}

describe(`agents CLI (${testBackend()})`, () => {
  let dataDir: string;
  beforeAll(() => {
    buildDist();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-test-agents-cli-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('publishes the blog tool assets into a data directory, idempotently', async () => {
    const missing = await cli({}, 'agents', 'publish-blog-tools', '--data-dir', dataDir);
    expect(missing.code).toBe(1);
    expect(missing.output).toMatch(/--base-url/);

    // The blog tools reference env:OPS_SECRET_BLOG_API_KEY, which publishing accepts only when granted.
    const grant = { SECRET_ENV_GRANTS: 'default:OPS_SECRET_BLOG_API_KEY' };
    const first = await cli(
      grant,
      'agents',
      'publish-blog-tools',
      '--base-url',
      'http://blog.internal:8080',
      '--data-dir',
      dataDir,
    );
    expect(first.code).toBe(0);
    expect(first.output).toMatch(/get_user_blog_posts: created, serving version 1/);
    expect(first.output).toMatch(/post_blog_article: created, serving version 1/);

    const again = await cli(
      { ...grant, BLOG_API_BASE_URL: 'http://blog.internal:8080' },
      'agents',
      'publish-blog-tools',
      '--data-dir',
      dataDir,
    );
    expect(again.code).toBe(0);
    expect(again.output).toMatch(/get_user_blog_posts: unchanged, serving version 1/);
  });
});
