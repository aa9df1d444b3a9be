import dns from 'node:dns';
import net from 'node:net';
import { blockedAddressReason, BlockedReason } from './address-policy.util';

interface AllowlistEntry {
  host: string;
  /** Undefined: any port. */
  port?: number;
  /** `*.example.com`: the host and every subdomain. */
  wildcard: boolean;
}

function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

export function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

/**
 * Which destinations outbound connections (http tools, catalog `source` databases) may reach: public
 * addresses only, unless the operator allowlists a host (`HTTP_TOOL_ALLOWLIST` / `SOURCE_HOST_ALLOWLIST`
 * = `host[:port],*.corp.example,[::1]:8080`), which then may resolve to anything, internal addresses
 * included.
 */
export class EgressPolicy {
  private constructor(private readonly allowlist: AllowlistEntry[]) {}

  static fromAllowlist(spec: string | undefined, key = 'HTTP_TOOL_ALLOWLIST'): EgressPolicy {
    const entries: AllowlistEntry[] = [];
    for (const raw of (spec ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const match = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(raw);
      if (!match) throw new Error(`${key} entry "${raw}" is not host[:port]`);
      const wildcard = match[1].startsWith('*.');
      entries.push({
        host: normalizeHost(wildcard ? match[1].slice(2) : match[1]),
        port: match[2] ? Number(match[2]) : undefined,
        wildcard,
      });
    }
    return new EgressPolicy(entries);
  }

  /** Hostname as the WHATWG URL parser gives it (numeric IPv4 spellings already normalized). */
  isAllowlisted(hostname: string, port: number): boolean {
    const host = normalizeHost(hostname);
    return this.allowlist.some(
      (entry) =>
        (entry.port === undefined || entry.port === port) &&
        (entry.host === host || (entry.wildcard && host.endsWith(`.${entry.host}`))),
    );
  }

  /** Why an address resolved for a non-allowlisted host must not be contacted, or null. */
  blockedReason(address: string): BlockedReason | null {
    return blockedAddressReason(address);
  }
}

export type AddressResolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: AddressResolver = (hostname) => dns.promises.lookup(hostname, { all: true });

export interface VettedAddress {
  address: string;
  family: 4 | 6;
  allowlisted: boolean;
}

/** Why a host may not be contacted: its name did not resolve, or an address it resolved to is internal. */
export class EgressRefusedError extends Error {
  constructor(
    readonly reason: 'dns_failed' | 'no_addresses' | 'blocked',
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'EgressRefusedError';
  }
}

/**
 * Resolves a host once and checks every address it resolved to; the caller connects to the returned
 * address (never resolving again, so a second DNS answer cannot swap in an internal address). An
 * allowlisted host:port may resolve to anything.
 */
export async function vetHost(
  policy: EgressPolicy,
  hostname: string,
  port: number,
  resolver: AddressResolver = systemResolver,
): Promise<VettedAddress> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const allowlisted = policy.isAllowlisted(host, port);
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) }];
  } else {
    try {
      addresses = await resolver(host);
    } catch (error) {
      throw new EgressRefusedError('dns_failed', `Could not resolve ${host}.`, {
        host,
        reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message,
      });
    }
  }
  if (addresses.length === 0) {
    throw new EgressRefusedError('no_addresses', `${host} has no addresses.`, { host });
  }
  if (!allowlisted) {
    for (const { address } of addresses) {
      const reason = policy.blockedReason(address);
      if (reason) {
        throw new EgressRefusedError(
          'blocked',
          `Refused to connect to ${host}: ${address} is a ${reason} address.`,
          { host, address, reason },
        );
      }
    }
  }
  const [first] = addresses;
  return { address: first.address, family: first.family === 6 ? 6 : 4, allowlisted };
}
