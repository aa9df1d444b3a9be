import net from 'node:net';

/** Why an address may not be reached by an outbound tool request (null: it may). */
export type BlockedReason =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared (CGNAT)'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'documentation'
  | 'IPv4-mapped/compatible IPv6'
  | 'not an IP address';

type Ipv4Range = [base: number, prefix: number, reason: BlockedReason];

const IPV4_BLOCKED: Ipv4Range[] = [
  [ipv4('0.0.0.0'), 8, 'unspecified'],
  [ipv4('10.0.0.0'), 8, 'private'],
  [ipv4('100.64.0.0'), 10, 'shared (CGNAT)'],
  [ipv4('127.0.0.0'), 8, 'loopback'],
  [ipv4('169.254.0.0'), 16, 'link-local'],
  [ipv4('172.16.0.0'), 12, 'private'],
  [ipv4('192.0.0.0'), 24, 'reserved'],
  [ipv4('192.0.2.0'), 24, 'documentation'],
  [ipv4('192.88.99.0'), 24, 'reserved'],
  [ipv4('192.168.0.0'), 16, 'private'],
  [ipv4('198.18.0.0'), 15, 'reserved'],
  [ipv4('198.51.100.0'), 24, 'documentation'],
  [ipv4('203.0.113.0'), 24, 'documentation'],
  [ipv4('224.0.0.0'), 4, 'multicast'],
  [ipv4('240.0.0.0'), 4, 'reserved'],
];

function ipv4(dotted: string): number {
  return dotted.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function inIpv4Range(value: number, base: number, prefix: number): boolean {
  const size = 2 ** (32 - prefix);
  return Math.floor(value / size) === Math.floor(base / size);
}

function classifyIpv4(value: number): BlockedReason | null {
  for (const [base, prefix, reason] of IPV4_BLOCKED) {
    if (inIpv4Range(value, base, prefix)) return reason;
  }
  return null;
}

/** 16 bytes of an IPv6 address (with `::` and a dotted IPv4 tail), or null when malformed. */
export function parseIpv6(text: string): number[] | null {
  let address = text.replace(/^\[|\]$/g, '').split('%')[0];
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (tail) {
    if (net.isIPv4(tail[1]) === false) return null;
    const v = ipv4(tail[1]);
    address = `${address.slice(0, -tail[1].length)}${(v >>> 16).toString(16)}:${(v & 0xffff).toString(16)}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const group of groups) {
    if (!/^[\da-f]{1,4}$/i.test(group)) return null;
    const n = parseInt(group, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  return bytes.length === 16 ? bytes : null;
}

function v4From(bytes: number[], offset: number): number {
  return ((bytes[offset] * 256 + bytes[offset + 1]) * 256 + bytes[offset + 2]) * 256 + bytes[offset + 3];
}

function classifyIpv6(bytes: number[]): BlockedReason | null {
  const zeroUntil = (n: number) => bytes.slice(0, n).every((b) => b === 0);
  if (zeroUntil(16)) return 'unspecified';
  if (zeroUntil(15) && bytes[15] === 1) return 'loopback';
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (translated): refused outright,
  // since stacks route them to the embedded IPv4 address.
  if (zeroUntil(10) && bytes[10] === 0xff && bytes[11] === 0xff) return 'IPv4-mapped/compatible IPv6';
  if (zeroUntil(12)) return 'IPv4-mapped/compatible IPv6';
  if (zeroUntil(8) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0)
    return 'IPv4-mapped/compatible IPv6';
  const [b0, b1] = bytes;
  // NAT64 (64:ff9b::/96 well-known, 64:ff9b:1::/48 local) and 6to4 (2002::/16) embed an IPv4 address.
  if (b0 === 0x00 && b1 === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) {
    const isLocalUse = bytes[4] === 0 && bytes[5] === 1;
    if (isLocalUse) return 'private';
    return classifyIpv4(v4From(bytes, 12));
  }
  if (b0 === 0x20 && b1 === 0x02) return classifyIpv4(v4From(bytes, 2));
  if (b0 === 0xfe && (b1 & 0xc0) === 0x80) return 'link-local';
  if (b0 === 0xfe && (b1 & 0xc0) === 0xc0) return 'unique-local';
  if ((b0 & 0xfe) === 0xfc) return 'unique-local';
  if (b0 === 0xff) return 'multicast';
  if (b0 === 0x20 && b1 === 0x01 && bytes[2] === 0x0d && bytes[3] === 0xb8) return 'documentation';
  if (b0 === 0x01 && bytes.slice(1, 8).every((b) => b === 0)) return 'reserved';
  return null;
}

/**
 * Classifies a literal IP address (as DNS returns it). Anything not a plain IPv4/IPv6 literal is
 * refused; numeric host spellings (2130706433, 0x7f000001, 0177.0.0.1, 127.1) are normalized to
 * dotted IPv4 by the WHATWG URL parser before they get here.
 */
export function blockedAddressReason(address: string): BlockedReason | null {
  const family = net.isIP(address.replace(/^\[|\]$/g, '').split('%')[0]);
  if (family === 4) return classifyIpv4(ipv4(address));
  if (family === 6) {
    const bytes = parseIpv6(address);
    return bytes ? classifyIpv6(bytes) : 'not an IP address';
  }
  return 'not an IP address';
}
