import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Principal } from '@app/platform';
import { McpHttpSessions } from './mcp-http-sessions.service';

/** MCP over streamable HTTP (JSON-RPC on POST, server notifications on the GET stream). */
@ApiTags('mcp')
@ApiBearerAuth()
@Controller('mcp')
export class McpHttpController {
  constructor(private readonly sessions: McpHttpSessions) {}

  @Post()
  @ApiOperation({
    summary: 'MCP JSON-RPC messages (initialize opens a session; its id comes back in Mcp-Session-Id)',
  })
  post(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.sessions.handle(req, res, principal);
  }

  @Get()
  @ApiOperation({ summary: 'Server-sent events of an MCP session (tools/list_changed notifications)' })
  stream(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.sessions.handle(req, res, principal);
  }

  @Delete()
  @ApiOperation({ summary: 'Close an MCP session' })
  close(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.sessions.handle(req, res, principal);
  }
}
