import { parseArgs, serverUrl, stringFlag } from './cli-args';

describe('parseArgs', () => {
  it('splits positionals and flags in both --k v and --k=v forms', () => {
    const args = parseArgs(['keys', 'create', '--tenant', 'acme', '--role=reader', '--dry']);
    expect(args.positional).toEqual(['keys', 'create']);
    expect(stringFlag(args, 'tenant')).toBe('acme');
    expect(stringFlag(args, 'role')).toBe('reader');
    expect(args.flags.dry).toBe(true);
    expect(stringFlag(args, 'dry')).toBeUndefined();
  });
});

// Issue 31: the README exports OPS_URL and OPS_KEY once; a CLI example names neither on npm's command line.
describe('serverUrl', () => {
  const saved = process.env.OPS_URL;
  afterEach(() => {
    if (saved === undefined) delete process.env.OPS_URL;
    else process.env.OPS_URL = saved;
  });

  it('takes --url, else OPS_URL, unless --data-dir asks for the database', () => {
    delete process.env.OPS_URL;
    expect(serverUrl(parseArgs(['keys', 'list']))).toBeUndefined();
    expect(serverUrl(parseArgs(['keys', 'list', '--url', 'http://a:1']))).toBe('http://a:1');
    process.env.OPS_URL = 'http://from-env:3000';
    expect(serverUrl(parseArgs(['keys', 'list']))).toBe('http://from-env:3000');
    expect(serverUrl(parseArgs(['keys', 'list', '--url', 'http://a:1']))).toBe('http://a:1');
    expect(serverUrl(parseArgs(['keys', 'list', '--data-dir', './data']))).toBeUndefined();
    process.env.OPS_URL = '  ';
    expect(serverUrl(parseArgs(['keys', 'list']))).toBeUndefined();
  });
});
