import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { OnEvent } from '@nestjs/event-emitter';
import { DataSource } from 'typeorm';
import {
  type Actor,
  AssetRegistryModule,
  AssetRegistryService,
  AssetTypeRegistry,
  contentAssetType,
  PublishedAssetReader,
  ToolAssetDryRunner,
  type ToolAssetSpec,
  ToolDryRunnerPort,
  type ToolDryRunOutcome,
} from '@app/asset-registry';
import { type AssetLifecycleEvent, AuthService, CacheStore } from '@app/platform';
import { MAPPING_ASSET_TYPE, PROMPT_ASSET_TYPE, RESOLVER_ASSET_TYPE } from '@app/planner';
import { HTTP_TOOL_CONFIG_SCHEMA, POLICY_ASSET_TYPE, SCREEN_ASSET_TYPE, toolAssetType } from '@app/tools';
import { startTestContext, TestContext, testBackend } from '@test/support';

@Injectable()
class RecordingDryRunner extends ToolAssetDryRunner {
  readonly calls: Array<{ tenantId: string; spec: ToolAssetSpec; input: Record<string, unknown> }> = [];

  dryRun(tenantId: string, spec: ToolAssetSpec, input: Record<string, unknown>): Promise<ToolDryRunOutcome> {
    this.calls.push({ tenantId, spec, input });
    if (input.host === 'broken') return Promise.reject(new Error('connection refused'));
    return Promise.resolve({ status: 'passed', output: { up: true, host: input.host } });
  }
}

@Injectable()
class EventRecorder {
  readonly events: Array<{ event: string; servedAtEvent: number | null } & AssetLifecycleEvent> = [];

  constructor(private readonly moduleRef: ModuleRef) {}

  /** What a listener reloading the asset (like the tool registry) reads while handling the event. */
  private async record(event: string, e: AssetLifecycleEvent) {
    const reader = this.moduleRef.get(PublishedAssetReader, { strict: false });
    const served = await reader.getPublished(e.tenantId, e.assetType, e.name);
    this.events.push({ event, servedAtEvent: served?.version ?? null, ...e });
  }

  @OnEvent('asset.published')
  published(e: AssetLifecycleEvent) {
    return this.record('asset.published', e);
  }

  @OnEvent('asset.rolled_back')
  rolledBack(e: AssetLifecycleEvent) {
    return this.record('asset.rolled_back', e);
  }

  @OnEvent('asset.archived')
  archived(e: AssetLifecycleEvent) {
    return this.record('asset.archived', e);
  }
}

/** A type of a lib the registry has never heard of (the table used to list the ten it knew). */
const NOTE_ASSET_TYPE = contentAssetType('note', 'NoteAsset', {
  type: 'object',
  required: ['text'],
  properties: { text: { type: 'string' } },
});

/**
 * Plugs the recording runner into the registry the way the tools library plugs in its own, and registers
 * the asset types this spec stores the way their libs do (the registry alone knows catalog and source).
 */
@Module({
  imports: [AssetRegistryModule],
  providers: [RecordingDryRunner, EventRecorder],
  exports: [RecordingDryRunner, EventRecorder],
})
class TestDoublesModule implements OnModuleInit {
  constructor(
    private readonly port: ToolDryRunnerPort,
    private readonly runner: RecordingDryRunner,
    private readonly types: AssetTypeRegistry,
  ) {}

  onModuleInit(): void {
    this.port.register(this.runner);
    this.types.register(toolAssetType(() => new Map([['http', HTTP_TOOL_CONFIG_SCHEMA]])));
    for (const type of [
      PROMPT_ASSET_TYPE,
      MAPPING_ASSET_TYPE,
      RESOLVER_ASSET_TYPE,
      POLICY_ASSET_TYPE,
      SCREEN_ASSET_TYPE,
    ])
      this.types.register(type);
    this.types.register(NOTE_ASSET_TYPE);
  }
}

const statusTool = {
  asset_type: 'tool' as const,
  name: 'server_status',
  description: 'Is a server up?',
  tags: ['ops'],
  spec: {
    tool_type: 'http',
    tool_config: { method: 'GET', url: 'https://status.example.com/{{input.host}}', timeout_ms: 2000 },
    tool_input_schema: {
      type: 'object',
      properties: { host: { type: 'string' }, verbose: { type: 'boolean' } },
      required: ['host'],
    },
    tool_output_schema: { type: 'object', properties: { up: { type: 'boolean' }, host: { type: 'string' } } },
    sample_input: { host: 'web-01' },
  },
};

describe(`asset lifecycle (${testBackend()})`, () => {
  let ctx: TestContext;
  let assets: AssetRegistryService;
  let reader: PublishedAssetReader;
  let actor: Actor;
  let otherTenant: Actor;

  beforeAll(async () => {
    ctx = await startTestContext([AssetRegistryModule, TestDoublesModule]);
    assets = ctx.get(AssetRegistryService);
    reader = ctx.get(PublishedAssetReader);
    const auth = ctx.get(AuthService);
    actor = { tenantId: (await auth.createTenant('acme', 'Acme', undefined)).tenant.id, userId: 'alice' };
    otherTenant = {
      tenantId: (await auth.createTenant('other', 'Other', undefined)).tenant.id,
      userId: 'bob',
    };
  });
  afterAll(() => ctx.close());

  it('publishes, serves the published version while a new draft is edited, republishes, rolls back and archives', async () => {
    const prompt = await assets.create(actor, {
      asset_type: 'prompt',
      name: 'planner_system',
      spec: { scope: 'planner', engine: 'mustache', template: 'v1 {{question}}' },
    });
    expect(prompt).toMatchObject({ status: 'draft', version: 0, published_version: null });
    expect(await reader.getPublished(actor.tenantId, 'prompt', 'planner_system')).toBeNull();

    const v1 = await assets.publish(actor, prompt.id, { note: 'first' });
    expect(v1).toMatchObject({
      version: 1,
      published_by: 'alice',
      note: 'first',
      rollback_from_version: null,
    });
    expect((await reader.getPublishedPrompt(actor.tenantId, 'planner_system'))?.content.template).toBe(
      'v1 {{question}}',
    );

    const edited = await assets.update(actor, prompt.id, { spec: { template: 'v2 {{question}}' } });
    expect(edited).toMatchObject({ status: 'draft', published_version: 1, has_unpublished_changes: true });
    const serving = await reader.getPublished(actor.tenantId, 'prompt', 'planner_system');
    expect(serving).toMatchObject({ version: 1, snapshot: { template: 'v1 {{question}}' } });
    expect((await assets.getServing(actor.tenantId, prompt.id)).template).toBe('v1 {{question}}');

    await expect(assets.publish(actor, prompt.id)).resolves.toMatchObject({ version: 2 });
    expect((await reader.getPublished(actor.tenantId, 'prompt', 'planner_system'))?.version).toBe(2);
    await expect(assets.publish(actor, prompt.id)).rejects.toMatchObject({ code: 'ASSET_NO_CHANGES' });

    // A pending draft survives a rollback; the serving version becomes v1's content as v3.
    await assets.update(actor, prompt.id, { spec: { template: 'v3 draft' } });
    const rolled = await assets.rollback(actor, prompt.id, 1, { note: 'bad v2' });
    expect(rolled).toMatchObject({
      version: 3,
      rollback_from_version: 1,
      snapshot: { template: 'v1 {{question}}' },
    });
    expect(await assets.get(actor.tenantId, prompt.id)).toMatchObject({
      template: 'v3 draft',
      status: 'draft',
      version: 3,
      published_version: 3,
    });
    expect((await reader.getPublished(actor.tenantId, 'prompt', 'planner_system'))?.snapshot.template).toBe(
      'v1 {{question}}',
    );

    const history = await assets.history(actor.tenantId, prompt.id);
    expect(history.map((h) => [h.version, h.rollback_from_version])).toEqual([
      [3, 1],
      [2, null],
      [1, null],
    ]);
    const diff = await assets.diff(actor.tenantId, prompt.id, 1, 2);
    expect(diff.changes).toEqual([
      { path: 'template', change: 'changed', from: 'v1 {{question}}', to: 'v2 {{question}}' },
    ]);
    expect((await assets.diff(actor.tenantId, prompt.id, 'published', 'draft')).changes).toEqual([
      { path: 'template', change: 'changed', from: 'v1 {{question}}', to: 'v3 draft' },
    ]);
    expect((await assets.diff(actor.tenantId, prompt.id, 1, 3)).changes).toEqual([]);

    const archived = await assets.archive(actor, prompt.id);
    expect(archived).toMatchObject({ status: 'archived', published_version: null, archived_by: 'alice' });
    expect(await reader.getPublished(actor.tenantId, 'prompt', 'planner_system')).toBeNull();
    await expect(assets.archive(actor, prompt.id)).rejects.toMatchObject({ code: 'ASSET_ALREADY_ARCHIVED' });
    await expect(assets.rollback(actor, prompt.id, 2)).resolves.toMatchObject({ version: 4 });
    expect((await reader.getPublished(actor.tenantId, 'prompt', 'planner_system'))?.version).toBe(4);
  });

  it('never changes a published version: history rows are immutable, even to direct SQL', async () => {
    const mapping = await assets.create(actor, {
      asset_type: 'mapping',
      name: 'environments',
      spec: {
        content: { mappings: [{ keyword: '운영', value: 'prod', kind: 'filter', field: 'environment' }] },
      },
    });
    await assets.publish(actor, mapping.id);
    const before = await assets.getVersion(actor.tenantId, mapping.id, 1);
    await assets.update(actor, mapping.id, {
      description: 'edited',
      spec: {
        content: { mappings: [{ keyword: '개발', value: 'dev', kind: 'filter', field: 'environment' }] },
      },
    });
    await assets.publish(actor, mapping.id);
    expect(await assets.getVersion(actor.tenantId, mapping.id, 1)).toEqual(before);
    await expect(
      ctx
        .get(DataSource)
        .query(`UPDATE tb_asset_version_history SET note = 'tampered' WHERE asset_id = $1`, [mapping.id]),
    ).rejects.toThrow(/immutable/);
    const mappings = await reader.listPublishedMappings(actor.tenantId);
    expect(mappings).toEqual([
      expect.objectContaining({ name: 'environments', version: 2, content: expect.objectContaining({}) }),
    ]);
    expect(mappings[0].content.mappings[0].keyword).toBe('개발');
  });

  it('rejects invalid assets naming the field, and duplicate names per tenant and type', async () => {
    await expect(
      assets.create(actor, {
        ...statusTool,
        name: 'bad_tool',
        spec: { ...statusTool.spec, tool_config: { method: 'GET', url: 'file:///etc/passwd' } },
      }),
    ).rejects.toMatchObject({
      code: 'ASSET_INVALID',
      details: { fields: [{ field: 'tool_config.url', errors: [expect.stringMatching(/pattern/)] }] },
    });
    await expect(
      assets.create(actor, { asset_type: 'catalog', name: 'c', spec: { content: { tables: [] } } }),
    ).rejects.toMatchObject({ details: { fields: [{ field: 'content.source' }] } });
    await assets.create(actor, { asset_type: 'screen', name: 'dash', spec: { content: { components: [] } } });
    await expect(
      assets.create(actor, { asset_type: 'screen', name: 'dash', spec: { content: { components: [] } } }),
    ).rejects.toMatchObject({ code: 'ASSET_NAME_TAKEN' });
    await expect(
      assets.create(otherTenant, {
        asset_type: 'screen',
        name: 'dash',
        spec: { content: { components: [] } },
      }),
    ).resolves.toMatchObject({ name: 'dash' });
  });

  it('stores any type a lib registered and refuses one nobody did', async () => {
    const note = await assets.create(actor, {
      asset_type: 'note',
      name: 'n1',
      spec: { content: { text: 'x' } },
    });
    await assets.publish(actor, note.id);
    expect(await reader.getPublished(actor.tenantId, 'note', 'n1')).toMatchObject({ version: 1 });
    await expect(
      assets.create(actor, { asset_type: 'note', name: 'n2', spec: { content: {} } }),
    ).rejects.toMatchObject({ details: { fields: [{ field: 'content.text' }] } });
    await expect(
      assets.create(actor, { asset_type: 'unregistered', name: 'x', spec: {} }),
    ).rejects.toMatchObject({
      code: 'ASSET_INVALID',
      details: { fields: [{ field: 'asset_type', errors: [expect.stringContaining('note')] }] },
    });
  });

  it('keeps tenants apart', async () => {
    const own = await assets.create(actor, {
      asset_type: 'policy',
      name: 'budget',
      spec: { content: { policy_type: 'planner_budget', settings: { max_tools: 3 } } },
    });
    await assets.publish(actor, own.id);
    await expect(assets.get(otherTenant.tenantId, own.id)).rejects.toMatchObject({ code: 'ASSET_NOT_FOUND' });
    await expect(assets.publish(otherTenant, own.id)).rejects.toMatchObject({ code: 'ASSET_NOT_FOUND' });
    expect(await reader.getPublished(otherTenant.tenantId, 'policy', 'budget')).toBeNull();
    expect(await reader.listPublished(otherTenant.tenantId, 'policy')).toEqual([]);
  });

  describe('tool assets', () => {
    it('checks the contract, records the dry run, blocks breaking changes unless forced', async () => {
      const runner = ctx.get(RecordingDryRunner);
      const tool = await assets.create(actor, statusTool);
      const v1 = await assets.publish(actor, tool.id);
      expect(v1.dry_run).toMatchObject({ status: 'passed', output: { up: true, host: 'web-01' } });
      expect(v1.contract_check).toMatchObject({
        compared_with_version: null,
        issues: [],
        breaking_changes: [],
      });
      expect(runner.calls.at(-1)).toMatchObject({
        tenantId: actor.tenantId,
        input: { host: 'web-01' },
        spec: { name: 'server_status', kind: 'http', timeout_ms: 2000 },
      });

      // Removing `verbose` and requiring `region` breaks callers of v1.
      await assets.update(actor, tool.id, {
        spec: {
          tool_input_schema: {
            type: 'object',
            properties: { host: { type: 'string' }, region: { type: 'string' } },
            required: ['host', 'region'],
          },
          sample_input: { host: 'broken', region: 'kr' },
        },
      });
      const blocked = await assets.publish(actor, tool.id).catch((e: unknown) => e);
      expect(blocked).toMatchObject({
        code: 'ASSET_BREAKING_CHANGE',
        details: {
          compared_with_version: 1,
          breaking_changes: expect.arrayContaining([
            expect.objectContaining({ kind: 'input_field_removed', path: 'verbose' }),
            expect.objectContaining({ kind: 'input_field_newly_required', path: 'region' }),
          ]),
        },
      });
      expect((await reader.getPublishedTool(actor.tenantId, 'server_status'))?.version).toBe(1);

      const forced = await assets.publish(actor, tool.id, { force: true });
      expect(forced.version).toBe(2);
      expect(forced.contract_check).toMatchObject({ forced: true });
      expect(forced.dry_run).toMatchObject({ status: 'failed', error: 'connection refused' });
      expect((await assets.getVersion(actor.tenantId, tool.id, 2)).dry_run).toMatchObject({
        status: 'failed',
      });

      const published = await reader.getPublishedTool(actor.tenantId, 'server_status');
      expect(published?.content.tool_input_schema).toMatchObject({ required: ['host', 'region'] });
      const everywhere = await reader.listPublishedToolsAcrossTenants();
      expect(everywhere.map((t) => [t.tenant_id, t.name, t.version])).toContainEqual([
        actor.tenantId,
        'server_status',
        2,
      ]);
    });

    it('refuses a sample input that does not satisfy the input schema', async () => {
      const tool = await assets.create(actor, {
        ...statusTool,
        name: 'bad_sample',
        spec: { ...statusTool.spec, sample_input: { host: 42 } },
      });
      await expect(assets.publish(actor, tool.id, { force: true })).rejects.toMatchObject({
        code: 'ASSET_CONTRACT_INVALID',
        details: { issues: [{ field: 'sample_input.host', message: 'must be string' }] },
      });
    });

    it('records a skipped dry run when there is no sample input', async () => {
      const { sample_input: _ignored, ...spec } = statusTool.spec;
      const tool = await assets.create(actor, { ...statusTool, name: 'no_sample', spec });
      expect((await assets.publish(actor, tool.id)).dry_run).toMatchObject({ status: 'skipped' });
    });
  });

  it('emits lifecycle events after commit and drops cached lookups', async () => {
    const recorder = ctx.get(EventRecorder);
    const cache = ctx.get(CacheStore);
    const asset = await assets.create(actor, {
      asset_type: 'resolver',
      name: 'servers',
      spec: {
        content: { rules: [{ match_type: 'exact', pattern: '결제서버', field: 'ci_code', value: 'SRV-1' }] },
      },
    });
    const seen = recorder.events.length;
    await assets.publish(actor, asset.id);
    expect(await reader.getPublished(actor.tenantId, 'resolver', 'servers')).toMatchObject({ version: 1 });
    expect(await cache.get(`assets:published:${actor.tenantId}:resolver:servers`)).toMatchObject({
      asset: { version: 1 },
    });

    await assets.update(actor, asset.id, {
      spec: {
        content: { rules: [{ match_type: 'prefix', pattern: '결제', field: 'ci_code', value: 'SRV-2' }] },
      },
    });
    await assets.publish(actor, asset.id);
    // The v1 entry was dropped; the listener reloading during the event cached v2.
    expect(await cache.get(`assets:published:${actor.tenantId}:resolver:servers`)).toMatchObject({
      asset: { version: 2 },
    });
    expect(await reader.getPublished(actor.tenantId, 'resolver', 'servers')).toMatchObject({ version: 2 });
    await assets.rollback(actor, asset.id, 1);
    await assets.archive(actor, asset.id);

    expect(recorder.events.slice(seen)).toEqual([
      expect.objectContaining({
        event: 'asset.published',
        name: 'servers',
        assetType: 'resolver',
        version: 1,
        previousVersion: null,
        servedAtEvent: 1,
      }),
      expect.objectContaining({
        event: 'asset.published',
        version: 2,
        previousVersion: 1,
        actor: 'alice',
        servedAtEvent: 2,
      }),
      expect.objectContaining({
        event: 'asset.rolled_back',
        version: 3,
        previousVersion: 2,
        servedAtEvent: 3,
      }),
      expect.objectContaining({
        event: 'asset.archived',
        version: null,
        previousVersion: 3,
        servedAtEvent: null,
      }),
    ]);
    expect(await reader.getPublished(actor.tenantId, 'resolver', 'servers')).toBeNull();

    // Event-driven invalidation alone also drops what is cached.
    await cache.set(`assets:published-list:${actor.tenantId}:resolver`, [{ stale: true }], 300);
    const { event: _event, servedAtEvent: _served, ...last } = recorder.events.at(-1)!;
    await reader.onAssetLifecycle(last);
    expect(await reader.listPublished(actor.tenantId, 'resolver')).toEqual([]);
  });
});
