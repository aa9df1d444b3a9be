import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyView, AuthService, CurrentPrincipal, Principal, RequireRole } from '@app/platform';
import { CreateApiKeyRequestDto, toCreateKeyInput } from './admin.dto';

@ApiTags('admin')
@ApiBearerAuth()
@RequireRole('admin')
@Controller('api/keys')
export class KeysController {
  constructor(private readonly auth: AuthService) {}

  @Post()
  @ApiOperation({ summary: "Create a key for the caller's tenant; the secret is returned only here" })
  create(@Body() body: CreateApiKeyRequestDto, @CurrentPrincipal() principal: Principal) {
    return this.auth.createKey(principal.tenantId, toCreateKeyInput(body), principal);
  }

  @Get()
  @ApiOperation({ summary: "List the caller's tenant's keys (never the secrets)" })
  async list(@CurrentPrincipal() principal: Principal): Promise<{ keys: ApiKeyView[] }> {
    return { keys: await this.auth.listKeys(principal.tenantId) };
  }

  @Delete(':id')
  @ApiOperation({ summary: "Revoke a key of the caller's tenant" })
  revoke(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<ApiKeyView> {
    return this.auth.revokeKey(id, principal.tenantId);
  }
}
