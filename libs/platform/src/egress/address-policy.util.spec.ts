import { blockedAddressReason, parseIpv6 } from './address-policy.util';
import { EgressPolicy } from './egress-policy';

describe('blockedAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.254', 'shared (CGNAT)'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped/compatible IPv6'],
    ['::ffff:7f00:1', 'IPv4-mapped/compatible IPv6'],
    ['::ffff:8.8.8.8', 'IPv4-mapped/compatible IPv6'],
    ['::127.0.0.1', 'IPv4-mapped/compatible IPv6'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:7f00:1::', 'loopback'],
    ['not-an-ip', 'not an IP address'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '64:ff9b::808:808'])(
    'allows the public address %s',
    (address) => {
      expect(blockedAddressReason(address)).toBeNull();
    },
  );

  it('parses IPv6 forms', () => {
    expect(parseIpv6('::')).toEqual(new Array(16).fill(0));
    expect(parseIpv6('1::')?.[1]).toBe(1);
    expect(parseIpv6('1:2:3:4:5:6:7:8:9')).toBeNull();
    expect(parseIpv6('1::2::3')).toBeNull();
  });
});

describe('numeric host spellings', () => {
  // The WHATWG URL parser (used for every request) normalizes these to dotted IPv4 first.
  it.each(['2130706433', '0x7f000001', '0177.0.0.1', '127.1', '0x7f.1'])('%s is loopback', (host) => {
    const hostname = new URL(`http://${host}/`).hostname;
    expect(blockedAddressReason(hostname)).toBe('loopback');
  });
});

describe('EgressPolicy allowlist', () => {
  const policy = EgressPolicy.fromAllowlist('blog.internal, 127.0.0.1:8080, *.corp.example, [::1]:9000');

  it('matches hosts, ports and wildcard subdomains', () => {
    expect(policy.isAllowlisted('blog.internal', 443)).toBe(true);
    expect(policy.isAllowlisted('BLOG.internal.', 80)).toBe(true);
    expect(policy.isAllowlisted('127.0.0.1', 8080)).toBe(true);
    expect(policy.isAllowlisted('127.0.0.1', 80)).toBe(false);
    expect(policy.isAllowlisted('a.b.corp.example', 443)).toBe(true);
    expect(policy.isAllowlisted('corp.example.evil', 443)).toBe(false);
    expect(policy.isAllowlisted('::1', 9000)).toBe(true);
    expect(policy.isAllowlisted('other.internal', 443)).toBe(false);
  });

  it('rejects malformed entries', () => {
    expect(() => EgressPolicy.fromAllowlist('http://x')).toThrow(/host\[:port\]/);
  });
});
