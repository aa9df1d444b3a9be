import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireRole } from '@app/platform';
import type { SessionView } from './session.types';

@ApiTags('admin')
@ApiBearerAuth()
@Controller('api/session')
export class SessionController {
  @Get()
  @RequireRole('reader', 'service')
  @ApiOperation({ summary: "The caller's key: tenant, user and role (401 for an unknown or revoked key)" })
  current(@CurrentPrincipal() principal: Principal): SessionView {
    return {
      tenant_id: principal.tenantId,
      tenant_slug: principal.tenantSlug,
      user_id: principal.userId,
      role: principal.role,
      key_id: principal.keyId,
      is_system_admin: principal.isSystemAdmin,
    };
  }
}
