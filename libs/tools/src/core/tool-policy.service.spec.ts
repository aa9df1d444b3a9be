import type { PublishedAssetReader } from '@app/asset-registry';
import { ruleFor, ToolPolicyService } from './tool-policy.service';
import type { ToolContext } from './tool.types';

const context = (role?: ToolContext['role']): ToolContext => ({
  tenantId: 't1',
  userId: 'u',
  requestId: 'r',
  traceId: 'x',
  deadline: Date.now() + 1000,
  signal: new AbortController().signal,
  caller: 'mcp',
  role,
});

function serviceWith(tools: Record<string, unknown>): ToolPolicyService {
  const reader = {
    listPublishedPolicies: () =>
      Promise.resolve([
        { name: 'p', content: { policy_type: 'tool_access', settings: { tools } } },
        { name: 'q', content: { policy_type: 'planner_budget', settings: {} } },
      ]),
  } as unknown as PublishedAssetReader;
  return new ToolPolicyService(reader);
}

describe('tool_access policy rules', () => {
  it('prefers the exact name, then the longest pattern', () => {
    const settings = [{ tools: { '*': { roles: ['admin' as const] }, 'ci_*': {}, ci_lookup: {} } }];
    expect(ruleFor(settings, 'ci_lookup')?.pattern).toBe('ci_lookup');
    expect(ruleFor(settings, 'ci_other')?.pattern).toBe('ci_*');
    expect(ruleFor(settings, 'metric_query')?.pattern).toBe('*');
    expect(ruleFor([{ tools: { 'ci_*': {} } }], 'xci_lookup')).toBeNull();
  });

  it('checks the role a caller names (MCP), and refuses a caller of unknown role when roles are restricted', async () => {
    const service = serviceWith({ 'post_*': { roles: ['operator'] } });
    expect(await service.admit(context('admin'), 'post_blog')).toMatchObject({ allowed: true });
    expect(await service.admit(context('service'), 'post_blog')).toMatchObject({
      allowed: false,
      code: 'FORBIDDEN',
    });
    expect(await service.admit(context(undefined), 'post_blog')).toMatchObject({ allowed: false });
    expect(await service.admit(context(undefined), 'ci_lookup')).toEqual({ allowed: true, match: null });
  });

  it('counts runs per tenant and tool within a minute', async () => {
    const service = serviceWith({ ci_lookup: { rate_per_minute: 1 } });
    const admission = await service.admit(context('operator'), 'ci_lookup');
    if (!admission.allowed) throw new Error('refused');
    expect(await service.acquire(context('operator'), 'ci_lookup', admission.match)).toMatchObject({
      allowed: true,
    });
    expect(await service.acquire(context('operator'), 'ci_lookup', admission.match)).toMatchObject({
      allowed: false,
      code: 'RATE_LIMITED',
    });
    expect(
      await service.acquire({ ...context('operator'), tenantId: 't2' }, 'ci_lookup', admission.match),
    ).toMatchObject({ allowed: true });
  });

  it('tells a refused run when the rate window ends', async () => {
    const service = serviceWith({ ci_lookup: { rate_per_minute: 1 } });
    const match = ruleFor([{ tools: { ci_lookup: { rate_per_minute: 1 } } }], 'ci_lookup');
    await service.acquire(context('operator'), 'ci_lookup', match);
    const refused = await service.acquire(context('operator'), 'ci_lookup', match);
    if (refused.allowed) throw new Error('allowed');
    expect(refused.details.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(refused.details.retry_after_seconds).toBeLessThanOrEqual(60);
  });

  it('holds a concurrency slot until release, and applies a changed limit at once', async () => {
    const service = serviceWith({});
    const rule = (max: number) => ({ pattern: 'slow_*', rule: { max_concurrent: max } });
    const first = await service.acquire(context('operator'), 'slow_call', rule(1));
    if (!first.allowed) throw new Error('refused');
    expect(await service.acquire(context('operator'), 'slow_call', rule(1))).toMatchObject({
      allowed: false,
      code: 'RATE_LIMITED',
    });
    const second = await service.acquire(context('operator'), 'slow_call', rule(2));
    expect(second).toMatchObject({ allowed: true });
    first.release();
    if (second.allowed) second.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await service.acquire(context('operator'), 'slow_call', rule(1))).toMatchObject({ allowed: true });
  });
});
