import type { DiscoveryService } from '@nestjs/core';
import type { PublishedAssetReader } from '@app/asset-registry';
import { RequestContext } from '@app/platform';
import type { SideEffectGate } from './side-effect-gate';
import { ToolRegistry } from './tool-registry';
import { ruleFor, ToolPolicyService } from './tool-policy.service';
import type { PendingAction, Tool, ToolContext, ToolDefinition } from './tool.types';

const context = (overrides: Partial<ToolContext> = {}): ToolContext => ({
  tenantId: 't1',
  userId: 'u',
  requestId: 'r',
  traceId: 'x',
  deadline: Date.now() + 5000,
  signal: new AbortController().signal,
  ...overrides,
});

/** The tenant's published policies, in the order given (the service orders them by name). */
function policies(...published: Array<[string, Record<string, unknown>]>): ToolPolicyService {
  const reader = {
    listPublishedPolicies: () =>
      Promise.resolve(
        published.map(([name, tools]) => ({
          name,
          content: { policy_type: 'tool_access', settings: { tools } },
        })),
      ),
  } as unknown as PublishedAssetReader;
  return new ToolPolicyService(reader);
}

class CountingTool implements Tool {
  runs = 0;
  readonly definition: ToolDefinition;
  constructor(name: string, sideEffects: boolean) {
    this.definition = {
      name,
      description: name,
      input_schema: { type: 'object', properties: {}, additionalProperties: false },
      has_side_effects: sideEffects,
      timeout_ms: 1000,
      source: 'builtin',
    } as Partial<ToolDefinition> as ToolDefinition;
  }
  execute() {
    this.runs++;
    return Promise.resolve({ data: { ok: true } });
  }
}

function registryWith(service: ToolPolicyService, gate?: SideEffectGate) {
  const registry = new ToolRegistry(
    { getProviders: () => [] } as unknown as DiscoveryService,
    undefined,
    service,
  );
  const post = new CountingTool('post_blog', true);
  const lookup = new CountingTool('ci_lookup', false);
  registry.registerBuiltin(post);
  registry.registerBuiltin(lookup);
  if (gate) registry.setSideEffectGate(gate);
  return { registry, post, lookup };
}

describe('which rule governs a tool', () => {
  it('takes an exact name over any pattern, whichever policy holds them', () => {
    const settings: Parameters<typeof ruleFor>[0] = [
      { tools: { 'ci_*': { rate_per_minute: 1 } } },
      { tools: { ci_lookup: { max_concurrent: 2 } } },
    ];
    expect(ruleFor(settings, 'ci_lookup')).toEqual({ pattern: 'ci_lookup', rule: { max_concurrent: 2 } });
  });

  it('takes the most specific pattern (most literal characters), with * anywhere in it', () => {
    const settings = [{ tools: { '*': {}, 'ci_*': {}, '*_lookup': {}, 'metric*query': {} } }];
    expect(ruleFor(settings, 'ci_lookup')?.pattern).toBe('*_lookup');
    expect(ruleFor(settings, 'ci_graph')?.pattern).toBe('ci_*');
    expect(ruleFor(settings, 'metric_range_query')?.pattern).toBe('metric*query');
    expect(ruleFor(settings, 'post_blog')?.pattern).toBe('*');
    expect(ruleFor([{ tools: { 'ci_*': {} } }], 'ci')).toBeNull();
    expect(ruleFor([], 'ci_lookup')).toBeNull();
  });

  it('settles a tie by policy name, not by publishing order', async () => {
    const service = policies(
      ['b-later', { ci_lookup: { rate_per_minute: 5 } }],
      ['a-first', { ci_lookup: { rate_per_minute: 1 } }],
    );
    expect(ruleFor(await service.settingsOf('t1'), 'ci_lookup')?.rule).toEqual({ rate_per_minute: 1 });
  });
});

describe('who may run a tool', () => {
  const service = policies(['p', { 'post_*': { roles: ['operator'] }, ci_lookup: { rate_per_minute: 100 } }]);

  it('lets a higher role through and refuses a lower one, naming the rule and the roles', async () => {
    expect(await service.admit(context({ role: 'admin' }), 'post_blog')).toMatchObject({ allowed: true });
    expect(await service.admit(context({ role: 'reader' }), 'post_blog')).toMatchObject({
      allowed: false,
      code: 'FORBIDDEN',
      details: { policy_rule: 'post_*', required_roles: ['operator'], role: 'reader' },
    });
  });

  it("reads the role from the request's key when the caller names none", async () => {
    const principal = { tenantId: 't1', tenantSlug: 't', userId: 'u', keyId: 'k', isSystemAdmin: false };
    const asRole = (role: 'reader' | 'operator') =>
      RequestContext.run({ requestId: 'r', traceId: 'x', principal: { ...principal, role } }, () =>
        service.admit(context(), 'post_blog'),
      );
    expect(await asRole('operator')).toMatchObject({ allowed: true });
    expect(await asRole('reader')).toMatchObject({ allowed: false });
  });

  it('admits anyone under a rule without roles, handing the rule on for its limits', async () => {
    expect(await service.admit(context({ role: 'reader' }), 'ci_lookup')).toEqual({
      allowed: true,
      match: { pattern: 'ci_lookup', rule: { rate_per_minute: 100 } },
    });
  });
});

describe('confirmation and rate, as the registry applies them', () => {
  const pending = { action_id: 'a1', expires_at: '2026-01-01T00:00:00Z' } as PendingAction;
  const gate = () => {
    const held: string[] = [];
    return {
      held,
      gate: { hold: (_c: ToolContext, tool: string) => (held.push(tool), Promise.resolve(pending)) },
    };
  };

  it('holds a side-effect tool until a person confirms, and runs it once confirmed', async () => {
    const { held, gate: store } = gate();
    const { registry, post } = registryWith(policies(), store);
    const result = await registry.execute(context(), 'post_blog', {});
    expect(result).toMatchObject({
      success: false,
      error_details: { code: 'CONFIRMATION_REQUIRED' },
      pending_action: pending,
    });
    expect([held, post.runs]).toEqual([['post_blog'], 0]);
    expect(await registry.execute(context({ confirmed: true }), 'post_blog', {})).toMatchObject({
      success: true,
    });
    expect(post.runs).toBe(1);
  });

  it('refuses to run an unconfirmed side effect when there is no confirmation store', async () => {
    const { registry, post } = registryWith(policies());
    expect(await registry.execute(context(), 'post_blog', {})).toMatchObject({
      error_details: { code: 'CONFIRMATION_REQUIRED' },
    });
    expect(post.runs).toBe(0);
  });

  it('follows the policy: requires_confirmation false trusts a side-effect tool, true holds a read-only one', async () => {
    const { held, gate: store } = gate();
    const { registry, post, lookup } = registryWith(
      policies([
        'p',
        { post_blog: { requires_confirmation: false }, ci_lookup: { requires_confirmation: true } },
      ]),
      store,
    );
    expect(await registry.execute(context(), 'post_blog', {})).toMatchObject({ success: true });
    expect(await registry.execute(context(), 'ci_lookup', {})).toMatchObject({
      error_details: { code: 'CONFIRMATION_REQUIRED' },
    });
    expect([post.runs, lookup.runs, held]).toEqual([1, 0, ['ci_lookup']]);
  });

  it('refuses a caller the policy does not allow before anything is held for confirmation', async () => {
    const { held, gate: store } = gate();
    const { registry } = registryWith(policies(['p', { post_blog: { roles: ['admin'] } }]), store);
    expect(await registry.execute(context({ role: 'operator' }), 'post_blog', {})).toMatchObject({
      error_details: { code: 'FORBIDDEN' },
    });
    expect(held).toEqual([]);
  });

  it('does not run a call over the rate, and runs the tenant next door', async () => {
    const { registry, lookup } = registryWith(policies(['p', { ci_lookup: { rate_per_minute: 2 } }]));
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push((await registry.execute(context(), 'ci_lookup', {})).success);
    expect(outcomes).toEqual([true, true, false]);
    expect(lookup.runs).toBe(2);
    expect(await registry.execute(context({ tenantId: 't2' }), 'ci_lookup', {})).toMatchObject({
      success: true,
    });
  });
});
