import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from './cli-args';
import { resolveApiKey } from './key-commands';

// Issue 18: the README exports OPS_KEY, the CLI documents OPS_API_KEY; both must reach `--url` commands.
describe('resolveApiKey', () => {
  const saved = { ...process.env };
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-cli-key-'));
    delete process.env.OPS_API_KEY;
    delete process.env.OPS_KEY;
    process.env.DATA_DIR = dataDir;
  });
  afterEach(() => {
    process.env = { ...saved };
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes --api-key, then OPS_API_KEY, then OPS_KEY, then DATA_DIR/admin-key', () => {
    writeFileSync(path.join(dataDir, 'admin-key'), 'ops_from_file\n');
    expect(resolveApiKey(parseArgs([]))).toBe('ops_from_file');
    process.env.OPS_KEY = 'ops_from_ops_key';
    expect(resolveApiKey(parseArgs([]))).toBe('ops_from_ops_key');
    process.env.OPS_API_KEY = 'ops_from_ops_api_key';
    expect(resolveApiKey(parseArgs([]))).toBe('ops_from_ops_api_key');
    expect(resolveApiKey(parseArgs(['--api-key', 'ops_from_flag']))).toBe('ops_from_flag');
  });

  it('says how to give a key when there is none', () => {
    expect(() => resolveApiKey(parseArgs([]))).toThrow(/--api-key|OPS_API_KEY/);
  });
});
