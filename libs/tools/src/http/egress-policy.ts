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
 * Which destinations outbound tool requests may reach: public addresses only, unless the operator
 * allowlists a host (`HTTP_TOOL_ALLOWLIST=host[:port],*.corp.example,[::1]:8080`), which then may
 * resolve to anything, internal addresses included.
 */
export class EgressPolicy {
  private constructor(private readonly allowlist: AllowlistEntry[]) {}

  static fromAllowlist(spec: string | undefined): EgressPolicy {
    const entries: AllowlistEntry[] = [];
    for (const raw of (spec ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const match = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(raw);
      if (!match) throw new Error(`HTTP_TOOL_ALLOWLIST entry "${raw}" is not host[:port]`);
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
