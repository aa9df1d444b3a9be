import { Injectable, Optional } from '@nestjs/common';
import { PublishedAssetReader, type ToolAccessRule, type ToolAccessSettings } from '@app/asset-registry';
import { RequestContext, type Role, roleSatisfiesAny } from '@app/platform';
import { BoundedSemaphore } from './bounded-semaphore';
import { ToolContext, ToolErrorCode } from './tool.types';

const WINDOW_MS = 60_000;

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
 * confirmation, and per-tool rate (runs per minute) and concurrency limits. Counters are kept in this
 * process: with several API processes each allows the configured rate.
 */
@Injectable()
export class ToolPolicyService {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly running = new Map<string, BoundedSemaphore>();

  constructor(@Optional() private readonly reader?: PublishedAssetReader) {}

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
    const key = `${context.tenantId}\u0000${tool}`;
    if (rule.rate_per_minute) {
      const now = Date.now();
      const window = this.windows.get(key);
      const current = window && now - window.start < WINDOW_MS ? window : { start: now, count: 0 };
      if (current.count >= rule.rate_per_minute) {
        return {
          allowed: false,
          code: ToolErrorCode.RATE_LIMITED,
          message: `${tool} may run ${rule.rate_per_minute} times a minute for this tenant (tool_access policy); it was not run.`,
          details: {
            policy_rule: pattern,
            rate_per_minute: rule.rate_per_minute,
            retry_after_seconds: Math.max(1, Math.ceil((current.start + WINDOW_MS - now) / 1000)),
          },
        };
      }
      current.count++;
      this.windows.set(key, current);
    }
    if (!rule.max_concurrent) return { allowed: true, release: () => undefined };
    let semaphore = this.running.get(key);
    if (!semaphore) {
      semaphore = new BoundedSemaphore(rule.max_concurrent);
      this.running.set(key, semaphore);
    }
    const slot = await semaphore.acquire(0);
    if (!slot) {
      return {
        allowed: false,
        code: ToolErrorCode.RATE_LIMITED,
        message: `${tool} may run ${rule.max_concurrent} at a time for this tenant (tool_access policy); it was not run.`,
        details: { policy_rule: pattern, max_concurrent: rule.max_concurrent, retry_after_seconds: 1 },
      };
    }
    const held = semaphore;
    return {
      allowed: true,
      release: () => {
        slot();
        if (held.running === 0 && held.queued === 0 && this.running.get(key) === held)
          this.running.delete(key);
      },
    };
  }
}
