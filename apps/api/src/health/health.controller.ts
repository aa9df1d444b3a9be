import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { HealthRegistry, Public, ReadinessReport } from '@app/platform';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly registry: HealthRegistry) {}

  @Get('live')
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process is up' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: every dependency with its status; 503 when a critical one is down' })
  @ApiResponse({
    status: 503,
    description: 'A critical dependency is down (the same report)',
    schema: { $ref: '#/components/schemas/ReadinessReport' },
  })
  async ready(@Res({ passthrough: true }) response: Response): Promise<ReadinessReport> {
    const report = await this.registry.report();
    response.status(report.status === 'down' ? 503 : 200);
    return report;
  }
}
