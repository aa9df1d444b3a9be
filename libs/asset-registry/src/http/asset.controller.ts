import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CurrentPrincipal,
  ErrorKind,
  PlatformException,
  PlatformExceptionCode,
  ParseBoundedIntPipe,
  type Principal,
  RequireRole,
  roleSatisfies,
} from '@app/platform';
import type { AssetDiffView, AssetVersionView, AssetView, Page, PublishedAsset } from '../asset.types';
import { AssetRegistryException, AssetRegistryExceptionCode } from '../asset-registry.exception';
import { type CatalogSyncResult, CatalogSyncService } from '../catalog/catalog-sync.service';
import { type Actor, AssetRegistryService } from '../lifecycle/asset-registry.service';
import { PublishedAssetReader } from '../reading/published-asset.reader';
import { AssetTypeRegistry } from '../types/asset-type.registry';
import {
  AssetDiffQueryDto,
  CatalogSyncRequestDto,
  CreateAssetRequestDto,
  ListAssetsQueryDto,
  parseVersionRef,
  PublishAssetRequestDto,
  RollbackAssetRequestDto,
  specFromBody,
  UpdateAssetRequestDto,
} from './asset.dto';

const actorOf = (p: Principal): Actor => ({ tenantId: p.tenantId, userId: p.userId });
const isAdmin = (p: Principal) => roleSatisfies(p.role, 'admin');

/**
 * Versioned assets. Admins see and edit working copies; every other role sees only what is published
 * (a draft-only asset does not exist for them). Another tenant's assets are never visible.
 */
@ApiTags('assets')
@ApiBearerAuth()
@Controller('api/assets')
export class AssetController {
  constructor(
    private readonly assets: AssetRegistryService,
    private readonly reader: PublishedAssetReader,
    private readonly catalogSync: CatalogSyncService,
    private readonly types: AssetTypeRegistry,
  ) {}

  @Get('schemas')
  @RequireRole('reader')
  @ApiOperation({ summary: 'The JSON Schema each asset type’s type-specific fields must satisfy' })
  schemas(): Record<string, Record<string, unknown>> {
    return this.types.schemas();
  }

  @Post('catalog/sync')
  @HttpCode(200)
  @RequireRole('admin')
  @ApiOperation({
    summary:
      'Describe a database as the draft of a catalog asset: a published source asset, or (system admins only) the service’s own',
  })
  syncCatalog(
    @Body() body: CatalogSyncRequestDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CatalogSyncResult> {
    return this.catalogSync.sync({ ...actorOf(principal), isSystemAdmin: principal.isSystemAdmin }, body);
  }

  @Get('published/:type/:name')
  @RequireRole('reader')
  @ApiOperation({ summary: 'The version of an asset now serving, by type and name' })
  async published(
    @Param('type') type: string,
    @Param('name') name: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PublishedAsset> {
    const found = this.types.has(type)
      ? await this.reader.getPublished(principal.tenantId, type, name)
      : null;
    if (!found) {
      throw new AssetRegistryException(
        AssetRegistryExceptionCode.ASSET_NOT_FOUND,
        `No published ${type} asset named "${name}"`,
      );
    }
    return found;
  }

  @Post()
  @RequireRole('admin')
  @ApiOperation({ summary: 'Create a draft asset' })
  create(@Body() body: CreateAssetRequestDto, @CurrentPrincipal() principal: Principal): Promise<AssetView> {
    return this.assets.create(actorOf(principal), {
      asset_type: body.asset_type,
      name: body.name,
      description: body.description,
      tags: body.tags,
      spec: specFromBody(body),
    });
  }

  @Get()
  @RequireRole('reader')
  @ApiOperation({ summary: 'List assets (admins: working copies; others: published versions)' })
  list(
    @Query() query: ListAssetsQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Page<AssetView>> {
    const admin = isAdmin(principal);
    return this.assets.list(
      principal.tenantId,
      {
        assetType: query.type,
        status: admin ? query.status : undefined,
        tag: query.tag,
        name: query.name,
        search: query.search,
        limit: query.limit ?? 50,
        offset: query.offset ?? 0,
      },
      !admin,
    );
  }

  @Get(':id')
  @RequireRole('reader')
  @ApiOperation({ summary: 'One asset (admins: the working copy; others: the published version)' })
  get(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<AssetView> {
    return isAdmin(principal)
      ? this.assets.get(principal.tenantId, id)
      : this.assets.getServing(principal.tenantId, id);
  }

  @Patch(':id')
  @RequireRole('admin')
  @ApiOperation({
    summary: 'Edit the working copy; the published version keeps serving until the next publish',
  })
  update(
    @Param('id') id: string,
    @Body() body: UpdateAssetRequestDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AssetView> {
    return this.assets.update(actorOf(principal), id, {
      description: body.description,
      tags: body.tags,
      spec: specFromBody(body),
    });
  }

  @Post(':id/publish')
  @HttpCode(200)
  @RequireRole('admin')
  @ApiOperation({
    summary: 'Publish the working copy as a new immutable version (tools: contract check first)',
  })
  publish(
    @Param('id') id: string,
    @Body() body: PublishAssetRequestDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AssetVersionView> {
    return this.assets.publish(actorOf(principal), id, { force: body?.force, note: body?.note });
  }

  @Post(':id/rollback')
  @HttpCode(200)
  @RequireRole('admin')
  @ApiOperation({ summary: 'Publish an earlier version’s snapshot again as a new version' })
  rollback(
    @Param('id') id: string,
    @Body() body: RollbackAssetRequestDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AssetVersionView> {
    return this.assets.rollback(actorOf(principal), id, body.version, { force: body.force, note: body.note });
  }

  @Post(':id/archive')
  @HttpCode(200)
  @RequireRole('admin')
  @ApiOperation({ summary: 'Stop serving the asset' })
  archive(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<AssetView> {
    return this.assets.archive(actorOf(principal), id);
  }

  @Get(':id/versions')
  @RequireRole('reader')
  @ApiOperation({ summary: 'Published versions, newest first' })
  async history(
    @Param('id') id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ versions: AssetVersionView[] }> {
    await this.assertVisible(principal, id);
    return { versions: await this.assets.history(principal.tenantId, id) };
  }

  @Get(':id/versions/:version')
  @RequireRole('reader')
  @ApiOperation({ summary: 'One published version with its snapshot, contract check and dry run' })
  async version(
    @Param('id') id: string,
    @Param('version', new ParseBoundedIntPipe(1)) version: number,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AssetVersionView> {
    await this.assertVisible(principal, id);
    return this.assets.getVersion(principal.tenantId, id, version);
  }

  @Get(':id/diff')
  @RequireRole('reader')
  @ApiOperation({ summary: 'Field-level differences between two versions (or `published`, `draft`)' })
  async diff(
    @Param('id') id: string,
    @Query() query: AssetDiffQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AssetDiffView> {
    await this.assertVisible(principal, id);
    if (!isAdmin(principal) && (query.from === 'draft' || query.to === 'draft')) {
      throw new PlatformException(
        PlatformExceptionCode.FORBIDDEN,
        ErrorKind.FORBIDDEN,
        'Only admins may read drafts',
      );
    }
    return this.assets.diff(principal.tenantId, id, parseVersionRef(query.from), parseVersionRef(query.to));
  }

  /** Non-admins see an asset's history only while it is published. */
  private async assertVisible(principal: Principal, id: string): Promise<void> {
    if (!isAdmin(principal)) await this.assets.getServing(principal.tenantId, id);
  }
}
