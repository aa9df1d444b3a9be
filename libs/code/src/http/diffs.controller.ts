import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, RequireRole } from '@app/platform';
import type { DiffView } from '../code.types';
import { DiffApplicationService } from '../diff/diff-application.service';
import { DiffApplyRequestDto, DiffQueryDto } from './code.dto';

const DEFAULT_WAIT_MS = 60_000;

@ApiTags('code')
@ApiBearerAuth()
@RequireRole('service')
@Controller('internal/v1/diffs')
export class DiffsController {
  constructor(private readonly diffs: DiffApplicationService) {}

  @Post('apply')
  @ApiResponse({
    status: 202,
    description: 'Stored and queued: { diff_id, status } (poll GET /internal/v1/diffs/{id})',
    schema: { $ref: '#/components/schemas/DiffView' },
  })
  @ApiResponse({
    status: 200,
    description: 'Already indexed: with ?wait=true once done, or at once when the request changes nothing',
    schema: { $ref: '#/components/schemas/DiffView' },
  })
  @HttpCode(202)
  @ApiOperation({
    summary:
      'Apply a user’s code changes (service or admin key): stored and queued in one transaction, 202 { diff_id, status }; ?wait=true answers with the DiffApplyResult once indexed',
  })
  async apply(
    @Body() body: DiffApplyRequestDto,
    @Query() query: DiffQueryDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DiffView> {
    let diff = await this.diffs.apply(principal.tenantId, {
      userId: body.user_id,
      repository: body.repository,
      commit: body.commit,
      files: body.files,
      unified: body.unified,
    });
    if (query.wait)
      diff = await this.diffs.waitFor(principal.tenantId, diff.diff_id, query.wait_ms ?? DEFAULT_WAIT_MS);
    if (diff.status === 'done' || diff.status === 'failed') response.status(200);
    return diff;
  }

  @Get(':id')
  @ApiOperation({ summary: 'A diff’s status and DiffApplyResult (?wait=true: once indexed)' })
  get(
    @Param('id', new ParseUUIDPipe()) id: string,
    @Query() query: DiffQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<DiffView> {
    return query.wait
      ? this.diffs.waitFor(principal.tenantId, id, query.wait_ms ?? DEFAULT_WAIT_MS)
      : this.diffs.get(principal.tenantId, id);
  }
}
