import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApiKeyView,
  AuthService,
  CurrentPrincipal,
  Principal,
  runAsSystem,
  SystemAdminOnly,
  TenantView,
} from '@app/platform';
import { CreateApiKeyRequestDto, CreateTenantRequestDto, toCreateKeyInput } from './admin.dto';

/**
 * Platform-level administration: tenants and any tenant's keys. System admin keys only, so every
 * handler reads across tenants through the audited row-level-security bypass.
 */
@ApiTags('admin')
@ApiBearerAuth()
@SystemAdminOnly()
@Controller('api/tenants')
export class TenantsController {
  constructor(private readonly auth: AuthService) {}

  @Post()
  @ApiOperation({ summary: 'Create a tenant; returns its first admin key once' })
  create(@Body() body: CreateTenantRequestDto, @CurrentPrincipal() principal: Principal) {
    return runAsSystem('admin: create tenant', () =>
      this.auth.createTenant(body.slug, body.name ?? body.slug, principal),
    );
  }

  @Get()
  @ApiOperation({ summary: 'List tenants' })
  async list(): Promise<{ tenants: TenantView[] }> {
    return { tenants: await runAsSystem('admin: list tenants', () => this.auth.listTenants()) };
  }

  @Post(':tenant/keys')
  @ApiOperation({ summary: 'Create a key in any tenant (by id or slug)' })
  createKey(
    @Param('tenant') tenant: string,
    @Body() body: CreateApiKeyRequestDto,
    @CurrentPrincipal() principal: Principal,
  ) {
    return runAsSystem('admin: create key in a tenant', () =>
      this.auth.createKey(tenant, toCreateKeyInput(body), principal),
    );
  }

  @Get(':tenant/keys')
  @ApiOperation({ summary: "List a tenant's keys" })
  async listKeys(@Param('tenant') tenant: string): Promise<{ keys: ApiKeyView[] }> {
    return { keys: await runAsSystem("admin: list a tenant's keys", () => this.auth.listKeys(tenant)) };
  }

  @Delete(':tenant/keys/:id')
  @ApiOperation({ summary: "Revoke a tenant's key" })
  async revokeKey(@Param('tenant') tenant: string, @Param('id') id: string): Promise<ApiKeyView> {
    return runAsSystem("admin: revoke a tenant's key", async () => {
      const owner = await this.auth.getTenant(tenant);
      return this.auth.revokeKey(id, owner.id);
    });
  }
}
