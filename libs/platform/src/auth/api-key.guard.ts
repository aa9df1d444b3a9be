import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RequestContext } from '../context/request-context';
import { ErrorKind, PlatformException, PlatformExceptionCode } from '../errors/app.exception';
import { AuthenticatedRequest, PUBLIC_ROUTE, REQUIRED_ROLE, SYSTEM_ADMIN_ONLY } from './auth.decorators';
import { AuthService } from './auth.service';
import { Role, roleSatisfiesAny } from './principal';

interface HeaderCarrier extends AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
}

export function extractApiKey(headers: HeaderCarrier['headers']): string | undefined {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim()) return apiKey.trim();
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  return undefined;
}

/** Global guard: every route needs a valid key unless marked @Public(); roles are checked after. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;

    const request = context.switchToHttp().getRequest<HeaderCarrier>();
    const principal = await this.auth.authenticate(extractApiKey(request.headers));
    request.principal = principal;
    RequestContext.setPrincipal(principal);

    if (this.reflector.getAllAndOverride<boolean>(SYSTEM_ADMIN_ONLY, targets) && !principal.isSystemAdmin) {
      throw new PlatformException(
        PlatformExceptionCode.FORBIDDEN,
        ErrorKind.FORBIDDEN,
        'This action needs a system admin key.',
      );
    }
    const required = this.reflector.getAllAndOverride<Role[] | undefined>(REQUIRED_ROLE, targets);
    if (required?.length && !roleSatisfiesAny(principal.role, required)) {
      const wanted = required.join(' or ');
      throw new PlatformException(
        PlatformExceptionCode.FORBIDDEN,
        ErrorKind.FORBIDDEN,
        `This action needs the ${wanted} role; the key has ${principal.role}.`,
        { required_role: required.length === 1 ? required[0] : required, role: principal.role },
      );
    }
    return true;
  }
}
