import { parseArgs, stringFlag } from './cli-args';

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
