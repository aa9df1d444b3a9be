import { createParamDecorator, CustomDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Principal, Role } from './principal';

export const PUBLIC_ROUTE = 'auth:public';
export const REQUIRED_ROLE = 'auth:role';
export const SYSTEM_ADMIN_ONLY = 'auth:system-admin';

/** No API key needed (health and docs only). */
export const Public = (): CustomDecorator => SetMetadata(PUBLIC_ROUTE, true);

/**
 * The least role allowed (higher roles pass too); several roles: any of them will do. Routes
 * without it need any valid key.
 */
export const RequireRole = (...roles: [Role, ...Role[]]): CustomDecorator =>
  SetMetadata(REQUIRED_ROLE, roles);

/** Only the platform's system admin keys (tenant management). */
export const SystemAdminOnly = (): CustomDecorator => SetMetadata(SYSTEM_ADMIN_ONLY, true);

export interface AuthenticatedRequest {
  principal?: Principal;
}

export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const request = ctx.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.principal) throw new Error('CurrentPrincipal used on a route without authentication');
  return request.principal;
});
