import { Controller, Get, HttpCode, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthService, extractApiKey, HealthRegistry, Public, ReadinessReport } from '@app/platform';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly registry: HealthRegistry,
    private readonly auth: AuthService,
  ) {}

  @Get('live')
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process is up' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    summary:
      'Readiness: every dependency with its status; 503 when a critical one is down. Public; a system admin key adds per-tenant detail',
  })
  @ApiResponse({
    status: 503,
    description: 'A critical dependency is down (the same report)',
    schema: { $ref: '#/components/schemas/ReadinessReport' },
  })
  async ready(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ReadinessReport> {
    const report = await this.registry.report(3000, { systemAdmin: await this.isSystemAdmin(request) });
    response.status(report.status === 'down' ? 503 : 200);
    return report;
  }

  /** A key that does not authenticate is ignored here: readiness stays public, only the detail needs it. */
  private async isSystemAdmin(request: Request): Promise<boolean> {
    const raw = extractApiKey(request.headers);
    if (!raw) return false;
    return this.auth
      .authenticate(raw)
      .then((principal) => principal.isSystemAdmin)
      .catch(() => false);
  }
}
