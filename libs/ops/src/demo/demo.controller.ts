import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { CurrentPrincipal, Principal, RequireRole } from '@app/platform';
import { DemoDataService, DemoStatus } from './demo-data.service';

export class DemoLoadRequestDto {
  @ApiPropertyOptional({ enum: ['full', 'small'], default: 'full', example: 'small' })
  @IsOptional()
  @IsIn(['full', 'small'])
  scale?: 'full' | 'small';
}

@ApiTags('ops')
@ApiBearerAuth()
@Controller('ops/demo')
export class DemoController {
  constructor(private readonly demo: DemoDataService) {}

  @Get('status')
  @ApiOperation({
    summary: "State of the caller's tenant's demo dataset: not_loaded | loading | ready | failed",
  })
  status(@CurrentPrincipal() principal: Principal): Promise<DemoStatus> {
    return this.demo.status(principal.tenantId);
  }

  @Post('load')
  @HttpCode(202)
  @RequireRole('admin')
  @ApiOperation({ summary: "Load the demo dataset into the caller's tenant in the background (idempotent)" })
  load(@Body() body: DemoLoadRequestDto, @CurrentPrincipal() principal: Principal): Promise<DemoStatus> {
    return this.demo.start(principal.tenantId, { scale: body.scale });
  }
}
