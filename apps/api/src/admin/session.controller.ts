import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireRole, Role } from '@app/platform';

/** Who the presented key is: what a client (the console) needs to show only what the key may do. */
export interface SessionView {
  tenant_id: string;
  tenant_slug: string;
  user_id: string;
  role: Role;
  key_id: string;
  is_system_admin: boolean;
}

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
