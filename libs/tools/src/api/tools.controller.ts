import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, ErrorKind, Principal, RequestContext, RequireRole } from '@app/platform';
import { ToolRegistry } from '../core/tool-registry';
import { ToolsException, ToolsExceptionCode } from '../core/tool-exceptions';
import { ToolErrorCode, ToolResult } from '../core/tool.types';
import { abortOnDisconnect } from './request-abort.util';
import { ToolExecuteRequestDto, ToolListingView, toToolListingView } from './tools-api.dto';

const DEFAULT_CALL_TIMEOUT_MS = 60_000;

@ApiTags('ops')
@ApiBearerAuth()
@Controller('ops/tools')
export class ToolsController {
  constructor(private readonly registry: ToolRegistry) {}

  @Get()
  @ApiOperation({ summary: "Every tool the caller's tenant can use, with input and output JSON Schemas" })
  list(@CurrentPrincipal() principal: Principal): { tools: ToolListingView[] } {
    return { tools: this.registry.list(principal.tenantId).map(toToolListingView) };
  }

  @Get(':name')
  @ApiOperation({ summary: 'One tool definition' })
  get(@Param('name') name: string, @CurrentPrincipal() principal: Principal): ToolListingView {
    const definition = this.registry.definition(principal.tenantId, name);
    if (!definition) throw ToolsException.notFound(name);
    return toToolListingView(definition);
  }

  @Post(':name/execute')
  @HttpCode(200)
  @RequireRole('operator')
  @ApiOperation({ summary: 'Run one tool; 400 for input not matching its schema, otherwise the ToolResult' })
  async execute(
    @Param('name') name: string,
    @Body() body: ToolExecuteRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ToolResult> {
    const { issues } = this.registry.validateInput(principal.tenantId, name, body.input ?? {});
    if (issues.length) {
      throw new ToolsException(
        ToolsExceptionCode.TOOL_INPUT_INVALID,
        ErrorKind.INVALID_INPUT,
        `Invalid input for ${name}.`,
        {
          tool: name,
          issues,
        },
      );
    }
    const request = RequestContext.current();
    const result = await this.registry.execute(
      {
        tenantId: principal.tenantId,
        userId: principal.userId,
        requestId: request?.requestId ?? '',
        traceId: request?.traceId ?? '',
        deadline: Date.now() + (body.timeout_ms ?? DEFAULT_CALL_TIMEOUT_MS),
        signal: abortOnDisconnect(response),
        caller: 'operator',
        confirmed: body.confirm === true,
      },
      name,
      body.input ?? {},
    );
    if (result.error_details?.code === ToolErrorCode.FORBIDDEN) {
      const { code: _code, ...details } = result.error_details;
      throw new ToolsException(
        ToolsExceptionCode.TOOL_FORBIDDEN_BY_POLICY,
        ErrorKind.FORBIDDEN,
        result.error ?? 'Forbidden.',
        { tool: name, ...details },
      );
    }
    if (result.error_details?.code === ToolErrorCode.RATE_LIMITED) {
      // The tenant's tool budget stayed full for the whole queue wait: a 429 the client can retry.
      const retryAfter = Number(result.error_details.retry_after_seconds) || 1;
      response.setHeader('Retry-After', String(retryAfter));
      throw new ToolsException(
        ToolsExceptionCode.TOOLS_BUSY,
        ErrorKind.RATE_LIMITED,
        result.error ?? 'Busy.',
        {
          tool: name,
          retry_after_seconds: retryAfter,
        },
      );
    }
    return result;
  }
}
