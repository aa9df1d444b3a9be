import { Injectable, Logger } from '@nestjs/common';
import {
  APP_EVENTS,
  type AppEventName,
  type AssetLifecycleEvent,
  EventBus,
  TenantSecretsService,
} from '@app/platform';
import {
  SPEC_FIELDS,
  type AssetDiffView,
  type AssetListQuery,
  type AssetSnapshot,
  type AssetSpec,
  type AssetVersionView,
  type AssetView,
  type ContractIssue,
  type Page,
  type PublishedAsset,
} from '../asset.types';
import { INTERNAL_SOURCE_REF } from '../asset-contents';
import type { AssetType } from '../types/asset-type.registry';
import { AssetRegistryException, AssetRegistryExceptionCode as Code } from '../asset-registry.exception';
import type { AssetEntity } from '../persistence/asset.entity';
import type { AssetVersionEntity } from '../persistence/asset-version.entity';
import {
  columnsOf,
  sameContent,
  snapshotOf,
  specOf,
  toAssetView,
  toVersionView,
} from '../persistence/asset.mapper';
import { AssetRepository, StaleRevision, UniqueViolation } from '../persistence/asset.repository';
import { PublishedAssetReader } from '../reading/published-asset.reader';
import { AssetSpecValidator } from '../validation/asset-spec.validator';
import { diffAssets } from './asset-diff.util';
import { secretReferencesOf } from './secret-references.util';
import { AssetContentCheckPort } from './asset-content-check.port';
import { ToolContractChecker } from './tool-contract.checker';

export interface Actor {
  tenantId: string;
  userId: string;
}

export interface CreateAssetInput {
  asset_type: AssetType;
  name: string;
  description?: string | null;
  tags?: string[];
  spec: AssetSpec;
}

/** `spec` fields given replace the current ones; a null clears a field. */
export interface UpdateAssetInput {
  description?: string | null;
  tags?: string[];
  spec: AssetSpec;
}

export interface PublishOptions {
  force?: boolean;
  note?: string | null;
}

export type VersionRef = number | 'draft' | 'published';

/** Drafts, publishing, rollback, archive and history of a tenant's assets. */
@Injectable()
export class AssetRegistryService {
  private readonly logger = new Logger(AssetRegistryService.name);

  constructor(
    private readonly repository: AssetRepository,
    private readonly validator: AssetSpecValidator,
    private readonly contracts: ToolContractChecker,
    private readonly contentChecks: AssetContentCheckPort,
    private readonly reader: PublishedAssetReader,
    private readonly events: EventBus,
    private readonly secrets: TenantSecretsService,
  ) {}

  async create(actor: Actor, input: CreateAssetInput): Promise<AssetView> {
    const spec = withoutNulls(input.spec);
    this.assertValid(input.asset_type, input.name, spec);
    try {
      const entity = await this.repository.insert({
        tenantId: actor.tenantId,
        assetType: input.asset_type,
        name: input.name,
        description: input.description ?? null,
        tags: dedupe(input.tags ?? []),
        status: 'draft',
        ...(columnsOf(spec) as Pick<AssetEntity, 'content'>),
        createdBy: actor.userId,
        updatedBy: actor.userId,
        publishedAt: null,
        publishedBy: null,
        archivedAt: null,
        archivedBy: null,
      } as Parameters<AssetRepository['insert']>[0]);
      return toAssetView(entity);
    } catch (error) {
      if (error instanceof UniqueViolation) {
        throw new AssetRegistryException(
          Code.ASSET_NAME_TAKEN,
          `A ${input.asset_type} asset named "${input.name}" already exists`,
          { asset_type: input.asset_type, name: input.name },
        );
      }
      throw error;
    }
  }

  /** Edits the working copy. A published asset keeps serving its published version until the next publish. */
  async update(actor: Actor, assetId: string, input: UpdateAssetInput): Promise<AssetView> {
    const asset = await this.mustFind(actor.tenantId, assetId);
    const given = Object.fromEntries(Object.entries(input.spec).filter(([, v]) => v !== undefined));
    const spec = withoutNulls({ ...specOf(asset), ...given });
    this.assertValid(asset.assetType, asset.name, spec);
    const description = input.description !== undefined ? input.description : asset.description;
    const tags = input.tags !== undefined ? dedupe(input.tags) : asset.tags;
    const next: AssetSnapshot = { asset_type: asset.assetType, name: asset.name, description, tags, ...spec };
    const serving = await this.servingVersion(asset);
    const status = serving && sameContent(serving.snapshot, next) ? 'published' : 'draft';
    const updated = await this.guard(() =>
      this.repository.updateDraft(actor.tenantId, assetId, asset.revision, {
        ...columnsOf(spec),
        description,
        tags,
        status,
        updatedBy: actor.userId,
      }),
    );
    return toAssetView(updated);
  }

  async publish(actor: Actor, assetId: string, options: PublishOptions = {}): Promise<AssetVersionView> {
    const asset = await this.mustFind(actor.tenantId, assetId);
    const snapshot = snapshotOf(asset);
    const serving = await this.servingVersion(asset);
    if (serving && sameContent(serving.snapshot, snapshot)) {
      throw new AssetRegistryException(
        Code.ASSET_NO_CHANGES,
        `Version ${serving.version} already serves this content; edit the asset before publishing`,
      );
    }
    this.assertValid(asset.assetType, asset.name, specOf(asset));
    return this.publishSnapshot(actor, asset, snapshot, options, null);
  }

  /** Publishes version N's snapshot again as a new version. An unpublished draft is kept as it is. */
  async rollback(
    actor: Actor,
    assetId: string,
    version: number,
    options: PublishOptions = {},
  ): Promise<AssetVersionView> {
    const asset = await this.mustFind(actor.tenantId, assetId);
    const target = await this.mustFindVersion(asset, version);
    if (asset.publishedVersion !== null && asset.publishedVersion === version) {
      throw new AssetRegistryException(Code.ASSET_NO_CHANGES, `Version ${version} is already serving`);
    }
    return this.publishSnapshot(actor, asset, target.snapshot, options, version);
  }

  async archive(actor: Actor, assetId: string): Promise<AssetView> {
    const asset = await this.mustFind(actor.tenantId, assetId);
    if (asset.status === 'archived') {
      throw new AssetRegistryException(
        Code.ASSET_ALREADY_ARCHIVED,
        `Asset ${asset.name} is already archived`,
      );
    }
    const archived = await this.guard(() =>
      this.repository.archive(actor.tenantId, assetId, asset.revision, actor.userId),
    );
    await this.announce(APP_EVENTS.ASSET_ARCHIVED, {
      tenantId: actor.tenantId,
      assetId,
      assetType: asset.assetType,
      name: asset.name,
      version: null,
      previousVersion: asset.publishedVersion,
      actor: actor.userId,
    });
    return toAssetView(archived);
  }

  async get(tenantId: string, assetId: string): Promise<AssetView> {
    return toAssetView(await this.mustFind(tenantId, assetId));
  }

  /** The asset as a reader sees it: its serving version, or not found when nothing serves. */
  async getServing(tenantId: string, assetId: string): Promise<AssetView> {
    const asset = await this.mustFind(tenantId, assetId);
    const serving = await this.servingVersion(asset);
    if (!serving) throw this.notFound(assetId);
    return servingView(asset, serving);
  }

  async list(tenantId: string, query: AssetListQuery, servingOnly: boolean): Promise<Page<AssetView>> {
    const page = { limit: query.limit, offset: query.offset };
    if (!servingOnly) {
      const { items, total } = await this.repository.list(tenantId, query);
      return { items: items.map(toAssetView), total, ...page };
    }
    const { items, total } = await this.repository.listServing(tenantId, query);
    return { items: items.map((row) => servingView(row.asset, row.version)), total, ...page };
  }

  async history(tenantId: string, assetId: string): Promise<AssetVersionView[]> {
    const asset = await this.mustFind(tenantId, assetId);
    return (await this.repository.listVersions(tenantId, asset.assetId)).map((v) => toVersionView(v, false));
  }

  async getVersion(tenantId: string, assetId: string, version: number): Promise<AssetVersionView> {
    const asset = await this.mustFind(tenantId, assetId);
    return toVersionView(await this.mustFindVersion(asset, version), true);
  }

  /** Field-level changes from one state to another: a version number, `published` or `draft`. */
  async diff(tenantId: string, assetId: string, from: VersionRef, to: VersionRef): Promise<AssetDiffView> {
    const asset = await this.mustFind(tenantId, assetId);
    const resolve = async (ref: VersionRef): Promise<{ ref: number | 'draft'; snapshot: AssetSnapshot }> => {
      if (ref === 'draft') return { ref, snapshot: snapshotOf(asset) };
      const number = ref === 'published' ? asset.publishedVersion : ref;
      if (number === null) {
        throw new AssetRegistryException(
          Code.ASSET_VERSION_NOT_FOUND,
          `Asset ${asset.name} has no published version`,
        );
      }
      return { ref: number, snapshot: (await this.mustFindVersion(asset, number)).snapshot };
    };
    const [before, after] = await Promise.all([resolve(from), resolve(to)]);
    return {
      asset_id: asset.assetId,
      from: before.ref,
      to: after.ref,
      changes: diffAssets(before.snapshot, after.snapshot),
    };
  }

  /** Published lookups for other modules; see PublishedAssetReader for the cached, typed accessors. */
  getPublished(tenantId: string, assetType: AssetType, name: string): Promise<PublishedAsset | null> {
    return this.reader.getPublished(tenantId, assetType, name);
  }

  listPublished(tenantId: string, assetType: AssetType): Promise<PublishedAsset[]> {
    return this.reader.listPublished(tenantId, assetType);
  }

  listPublishedAcrossTenants(assetType: AssetType): Promise<PublishedAsset[]> {
    return this.reader.listPublishedAcrossTenants(assetType);
  }

  /** Working copy by type and name (catalog sync updates an existing catalog this way). */
  async findByName(tenantId: string, assetType: AssetType, name: string): Promise<AssetView | null> {
    const asset = await this.repository.findByName(tenantId, assetType, name);
    return asset ? toAssetView(asset) : null;
  }

  private async publishSnapshot(
    actor: Actor,
    asset: AssetEntity,
    snapshot: AssetSnapshot,
    options: PublishOptions,
    rollbackFrom: number | null,
  ): Promise<AssetVersionView> {
    // A reference this tenant cannot resolve (another tenant's secret, an env name not granted to it)
    // is a 400 naming it, not a tool that fails at its first call.
    for (const ref of secretReferencesOf(snapshot)) await this.secrets.assertResolvable(asset.tenantId, ref);
    const checkContent = this.contentChecks.checkerFor(asset.assetType);
    if (checkContent) {
      const problems = await checkContent(actor.tenantId, snapshot.content);
      if (problems.length)
        throw new AssetRegistryException(
          Code.ASSET_CONTRACT_INVALID,
          `The ${asset.assetType} "${asset.name}" cannot be published: ${problems.join('; ')}`,
          { problems },
        );
    }
    let contractCheck = null;
    let dryRun = null;
    if (asset.assetType === 'tool' || asset.assetType === 'query') {
      // Both become tools of their name: a published tool and a published query may not share one.
      const other = asset.assetType === 'tool' ? 'query' : 'tool';
      if (await this.repository.findPublished(asset.tenantId, other, asset.name)) {
        throw new AssetRegistryException(
          Code.ASSET_NAME_TAKEN,
          `A published ${other} asset is already called "${asset.name}"; both would be the tool of that name.`,
          { name: asset.name, asset_type: other },
        );
      }
      // A tool names a source that exists: the planner plans it over that source's catalog.
      const sourceRef = snapshot.source_ref;
      if (
        typeof sourceRef === 'string' &&
        sourceRef !== INTERNAL_SOURCE_REF &&
        !(await this.repository.findPublished(asset.tenantId, 'source', sourceRef))
      ) {
        throw new AssetRegistryException(
          Code.ASSET_CONTRACT_INVALID,
          `source_ref "${sourceRef}" is neither "${INTERNAL_SOURCE_REF}" nor a published source asset; publish the source first`,
          { source_ref: sourceRef },
        );
      }
      const previous =
        asset.version > 0
          ? await this.repository.findVersion(asset.tenantId, asset.assetId, asset.version)
          : null;
      contractCheck = this.contracts.check(snapshot, previous, options.force === true);
      dryRun = await this.contracts.dryRun(actor.tenantId, snapshot);
    }
    // A rollback leaves unpublished edits in the working copy; otherwise the working copy is what serves.
    const keepDraft = rollbackFrom !== null && asset.status === 'draft';
    const { asset_type: _type, name: _name, description, tags, ...spec } = snapshot;
    const now = new Date();
    const { asset: updated, version } = await this.guard(() =>
      this.repository.publish(
        actor.tenantId,
        asset.assetId,
        asset.revision,
        {
          snapshot,
          publishedBy: actor.userId,
          rollbackFromVersion: rollbackFrom,
          note: options.note ?? null,
          contractCheck,
          dryRun,
        },
        (next) => ({
          ...(keepDraft ? {} : { ...columnsOf(spec), description, tags, status: 'published' as const }),
          publishedVersion: next,
          publishedAt: now,
          publishedBy: actor.userId,
          archivedAt: null,
          archivedBy: null,
        }),
      ),
    );
    await this.announce(rollbackFrom === null ? APP_EVENTS.ASSET_PUBLISHED : APP_EVENTS.ASSET_ROLLED_BACK, {
      tenantId: actor.tenantId,
      assetId: asset.assetId,
      assetType: asset.assetType,
      name: asset.name,
      version: updated.publishedVersion,
      previousVersion: asset.publishedVersion,
      actor: actor.userId,
    });
    return toVersionView(version, true);
  }

  /**
   * After commit: drop cached lookups first, so listeners that reload (the tool registry) read the new
   * state, then tell the other modules. A failing listener does not undo a committed publish.
   */
  private async announce(name: AppEventName & `asset.${string}`, event: AssetLifecycleEvent): Promise<void> {
    await this.reader.invalidate(event.tenantId, event.assetType, event.name);
    try {
      await this.events.emitAsync(name, event);
    } catch (error) {
      this.logger.error(
        { msg: 'asset event listener failed', event: name, asset: event.name },
        error as Error,
      );
    }
  }

  private assertValid(assetType: AssetType, name: string, spec: AssetSpec): void {
    const unknownType = this.validator.typeIssues(assetType);
    const issues = unknownType.length
      ? unknownType
      : [...this.validator.nameIssues(assetType, name), ...this.validator.specIssues(assetType, spec)];
    if (issues.length > 0) throw invalid(assetType, issues);
  }

  private async servingVersion(asset: AssetEntity): Promise<AssetVersionEntity | null> {
    if (asset.publishedVersion === null) return null;
    return this.repository.findVersion(asset.tenantId, asset.assetId, asset.publishedVersion);
  }

  private async mustFind(tenantId: string, assetId: string): Promise<AssetEntity> {
    const asset = await this.repository.findById(tenantId, assetId);
    if (!asset) throw this.notFound(assetId);
    return asset;
  }

  private async mustFindVersion(asset: AssetEntity, version: number): Promise<AssetVersionEntity> {
    const row = await this.repository.findVersion(asset.tenantId, asset.assetId, version);
    if (!row) {
      throw new AssetRegistryException(
        Code.ASSET_VERSION_NOT_FOUND,
        `Asset ${asset.name} has no version ${version}`,
        { asset_id: asset.assetId, version },
      );
    }
    return row;
  }

  private notFound(assetId: string): AssetRegistryException {
    return new AssetRegistryException(Code.ASSET_NOT_FOUND, `Asset ${assetId} not found`, {
      asset_id: assetId,
    });
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof StaleRevision) {
        throw new AssetRegistryException(
          Code.ASSET_CONCURRENT_CHANGE,
          'The asset changed while this request was running; reload it and try again',
        );
      }
      throw error;
    }
  }
}

export function invalid(assetType: AssetType, issues: ContractIssue[]): AssetRegistryException {
  const fields = [...new Set(issues.map((i) => i.field))].map((field) => ({
    field,
    errors: issues.filter((i) => i.field === field).map((i) => i.message),
  }));
  return new AssetRegistryException(
    Code.ASSET_INVALID,
    `Invalid ${assetType} asset: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}`,
    { fields },
  );
}

function servingView(asset: AssetEntity, serving: AssetVersionEntity): AssetView {
  const view = toAssetView(asset);
  for (const field of SPEC_FIELDS) delete view[field];
  return {
    ...view,
    ...serving.snapshot,
    status: 'published',
    version: serving.version,
    has_unpublished_changes: false,
    published_at: serving.publishedAt.toISOString(),
    published_by: serving.publishedBy,
  };
}

function withoutNulls(spec: AssetSpec): AssetSpec {
  return Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== null && v !== undefined));
}

const dedupe = (tags: string[]) => [...new Set(tags)];
