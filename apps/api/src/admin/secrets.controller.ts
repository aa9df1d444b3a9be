import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CurrentPrincipal,
  type Principal,
  RequireRole,
  TenantSecretsService,
  type TenantSecretView,
} from '@app/platform';
import { PutSecretRequestDto } from './admin.dto';

/**
 * The caller's tenant's secrets, referenced by its tools and sources as `secret:<NAME>`. Values go in
 * and never come out: the list shows names and timestamps only.
 */
@ApiTags('admin')
@ApiBearerAuth()
@RequireRole('admin')
@Controller('api/secrets')
export class SecretsController {
  constructor(private readonly secrets: TenantSecretsService) {}

  @Put(':name')
  @ApiOperation({
    summary: "Create or replace a secret of the caller's tenant (the value is never returned)",
  })
  put(
    @Param('name') name: string,
    @Body() body: PutSecretRequestDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TenantSecretView> {
    return this.secrets.put(principal.tenantId, name, body.value, principal.userId);
  }

  @Get()
  @ApiOperation({ summary: "Names and timestamps of the caller's tenant's secrets (never the values)" })
  async list(@CurrentPrincipal() principal: Principal): Promise<{ secrets: TenantSecretView[] }> {
    return { secrets: await this.secrets.list(principal.tenantId) };
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiOperation({ summary: "Delete a secret of the caller's tenant" })
  async remove(@Param('name') name: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.secrets.remove(principal.tenantId, name);
  }
}
