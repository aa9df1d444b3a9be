import { applyDecorators, Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Principal } from '@app/platform';
import { McpHttpSessions } from './mcp-http-sessions.service';

const JSON_RPC_MESSAGE = {
  type: 'object',
  description: 'A JSON-RPC 2.0 message (or a batch); see the MCP streamable HTTP transport',
  properties: { jsonrpc: { type: 'string', enum: ['2.0'] } },
  additionalProperties: true,
  example: { jsonrpc: '2.0', id: 1, result: { tools: [] } },
};
const JSON_RPC_ERROR = {
  type: 'object',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    error: {
      type: 'object',
      properties: { code: { type: 'integer' }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
    id: { nullable: true },
  },
  required: ['jsonrpc', 'error'],
  example: {
    jsonrpc: '2.0',
    error: { code: -32001, message: 'Session not found: initialize a new one.' },
    id: null,
  },
};

/** The transport's own answers: JSON-RPC bodies or an event stream, and JSON-RPC errors (not ErrorResponseDto). */
const ApiMcpResponses = (success: number, description: string) =>
  applyDecorators(
    ApiResponse({
      status: success,
      description,
      content: {
        'application/json': { schema: JSON_RPC_MESSAGE },
        'text/event-stream': { schema: { type: 'string' } },
      },
    }),
    ApiResponse({ status: 202, description: 'A notification or response was accepted (no body)' }),
    ...[
      [400, 'Not a valid JSON-RPC message, or no session id where one is needed'],
      [404, 'Unknown or closed session: initialize a new one'],
      [405, 'Method not allowed by the transport'],
      [406, 'The Accept header does not allow the answer'],
    ].map(([status, text]) =>
      ApiResponse({
        status: status as number,
        description: text as string,
        content: { 'application/json': { schema: JSON_RPC_ERROR } },
      }),
    ),
  );

/** MCP over streamable HTTP (JSON-RPC on POST, server notifications on the GET stream). */
@ApiTags('mcp')
@ApiBearerAuth()
@Controller('mcp')
export class McpHttpController {
  constructor(private readonly sessions: McpHttpSessions) {}

  @Post()
  @ApiMcpResponses(200, 'JSON-RPC results, as JSON or as an event stream')
  @ApiOperation({
    summary: 'MCP JSON-RPC messages (initialize opens a session; its id comes back in Mcp-Session-Id)',
  })
  post(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.sessions.handle(req, res, principal);
  }

  @Get()
  @ApiMcpResponses(200, "The session's server-sent events")
  @ApiOperation({ summary: 'Server-sent events of an MCP session (tools/list_changed notifications)' })
  stream(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.sessions.handle(req, res, principal);
  }

  @Delete()
  @ApiMcpResponses(200, 'The session is closed')
  @ApiOperation({ summary: 'Close an MCP session' })
  close(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.sessions.handle(req, res, principal);
  }
}
