import { Injectable, Optional } from '@nestjs/common';
import { PublishedAssetReader, type ToolAccessRule, type ToolAccessSettings } from '@app/asset-registry';
import { ClusterLimits, MemoryCacheStore, RequestContext, type Role, roleSatisfiesAny } from '@app/platform';
import { ToolContext, ToolErrorCode } from './tool.types';
import { ToolsConfig } from '../tools.config';

const WINDOW_SECONDS = 60;
const DEFAULT_LEASE_SECONDS = 30;

type Refusal = { allowed: false; code: ToolErrorCode; message: string; details: Record<string, unknown> };

/** The policy rule that governs one call, once the caller's role passed it. */
export type PolicyAdmission =
  Refusal | { allowed: true; match: { pattern: string; rule: ToolAccessRule } | null };

export type PolicySlot = Refusal | { allowed: true; release: () => void };

/** Exact names first, then the longest matching `*` pattern. */
export function ruleFor(
  settings: ToolAccessSettings[],
  tool: string,
): { pattern: string; rule: ToolAccessRule } | null {
  let best: { pattern: string; rule: ToolAccessRule; score: number } | null = null;
  for (const { tools } of settings) {
    for (const [pattern, rule] of Object.entries(tools ?? {})) {
      const exact = pattern === tool;
      const matches =
        exact ||
        (pattern.includes('*') &&
          new RegExp(
            `^${pattern
              .split('*')
              .map((p) => p.replace(/[-_]/g, '\\$&'))
              .join('.*')}$`,
          ).test(tool));
      if (!matches) continue;
      const score = exact ? Number.MAX_SAFE_INTEGER : pattern.replace(/\*/g, '').length;
      if (!best || score > best.score) best = { pattern, rule, score };
    }
  }
  return best ? { pattern: best.pattern, rule: best.rule } : null;
}

/**
 * The tenant's published `tool_access` policies, enforced by the tool registry for every caller (HTTP,
 * stages, planner, agent, chat, MCP): which roles may run a tool, which tools need a person's
 * confirmation, and per-tool rate (runs per minute, a fixed window) and concurrency limits. With Redis
 * the counters are shared by every replica (a window counter and a lease-based semaphore per tenant and
 * tool); without it, or while it is unreachable, each process counts alone.
 */
@Injectable()
export class ToolPolicyService {
  private readonly limits: ClusterLimits;

  constructor(
    @Optional() private readonly reader?: PublishedAssetReader,
    @Optional() limits?: ClusterLimits,
    @Optional() private readonly config?: ToolsConfig,
  ) {
    this.limits = limits ?? new ClusterLimits(new MemoryCacheStore(1000));
  }

  async settingsOf(tenantId: string): Promise<ToolAccessSettings[]> {
    if (!this.reader) return [];
    const policies = await this.reader.listPublishedPolicies(tenantId);
    return policies
      .filter((p) => p.content.policy_type === 'tool_access')
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((p) => p.content.settings as unknown as ToolAccessSettings);
  }

  /** Whether the caller's role may run this tool, and the rule (if any) that governs the call. */
  async admit(context: ToolContext, tool: string): Promise<PolicyAdmission> {
    const match = ruleFor(await this.settingsOf(context.tenantId), tool);
    if (!match?.rule.roles) return { allowed: true, match };
    const { pattern, rule } = match;
    const roles = rule.roles!;
    const role: Role | undefined = context.role ?? RequestContext.current()?.principal?.role;
    if (role && roleSatisfiesAny(role, roles)) return { allowed: true, match };
    return {
      allowed: false,
      code: ToolErrorCode.FORBIDDEN,
      message: `The tenant's tool_access policy lets ${roles.join(' or ')} run ${tool}; the caller is ${role ?? 'of unknown role'}.`,
      details: { policy_rule: pattern, required_roles: roles, role: role ?? null },
    };
  }

  /** The rate and concurrency limits of the rule: an allowed run holds its slot until `release`. */
  async acquire(
    context: ToolContext,
    tool: string,
    match: { pattern: string; rule: ToolAccessRule } | null,
  ): Promise<PolicySlot> {
    if (!match) return { allowed: true, release: () => undefined };
    const { pattern, rule } = match;
    const key = `${context.tenantId}:${tool}`;
    if (rule.rate_per_minute) {
      // Every attempt counts, refused ones too: the window is fixed, so that only moves the count.
      const window = await this.limits.hit(`tools:policy-rate:${key}`, WINDOW_SECONDS);
      if (window.count > rule.rate_per_minute) {
        return {
          allowed: false,
          code: ToolErrorCode.RATE_LIMITED,
          message: `${tool} may run ${rule.rate_per_minute} times a minute for this tenant (tool_access policy); it was not run.`,
          details: {
            policy_rule: pattern,
            rate_per_minute: rule.rate_per_minute,
            retry_after_seconds: Math.max(1, Math.ceil(window.resetInMs / 1000)),
          },
        };
      }
    }
    if (!rule.max_concurrent) return { allowed: true, release: () => undefined };
    const grant = await this.limits.acquire(`tools:policy-running:${key}`, {
      limit: rule.max_concurrent,
      leaseSeconds: this.config?.TOOL_SLOT_LEASE_SECONDS ?? DEFAULT_LEASE_SECONDS,
      keepAlive: true,
    });
    if (!grant.granted) {
      return {
        allowed: false,
        code: ToolErrorCode.RATE_LIMITED,
        message: `${tool} may run ${rule.max_concurrent} at a time for this tenant (tool_access policy); it was not run.`,
        details: { policy_rule: pattern, max_concurrent: rule.max_concurrent, retry_after_seconds: 1 },
      };
    }
    return { allowed: true, release: () => void grant.slot.release() };
  }
}
