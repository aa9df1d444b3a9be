import { Injectable, Logger } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolResult,
  JSONRPCRequest,
  ServerNotification,
  ServerRequest,
  ServerResult,
  Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { Principal, roleSatisfiesAny, runAsTenant, TOOL_RUNNER_ROLES } from '@app/platform';
import { ToolListing, ToolRegistry } from '../core/tool-registry';
import { ToolsException } from '../core/tool-exceptions';
import { failedToolResult } from '../core/tool-result';
import { JsonSchema, ToolErrorCode, ToolResult } from '../core/tool.types';
import { McpContentService } from './mcp-content.service';
import { mcpServer, mcpTypes } from './mcp-sdk';

export const MCP_SERVER_NAME = 'ops-copilot';
export const MCP_SERVER_VERSION = '0.1.0';
/** What `initialize` answers; `npm run mcp` answers it with a copy of these before the application boots. */
export const MCP_SERVER_OPTIONS = {
  capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
  instructions:
    'Operations tools of this tenant: configuration items, metrics, history, dependency graphs, documents ' +
    'and the tenant’s own http/sql tools and published stages. Results are JSON text. Resources are the ' +
    'tenant’s documents (read-only); prompts are its published prompt assets.',
};

type McpExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;
/** A request handler of `serve`, by method, taking the request as it came (it validates it). */
export type McpRequestHandler = (request: JSONRPCRequest, extra: McpExtra) => Promise<ServerResult>;
/** Upper bound for one tools/call; each tool's own timeout usually ends it sooner. */
export const MCP_CALL_DEADLINE_MS = 120_000;
/** Calling a tool needs the role of running a stage (operator) or a service key. */
export const MCP_CALL_ROLES = TOOL_RUNNER_ROLES;

function objectSchema(schema: JsonSchema): McpTool['inputSchema'] {
  return { ...schema, type: 'object' };
}

function hasObjectOutput(listing: ToolListing): boolean {
  return listing.output_schema?.type === 'object';
}

export function toMcpTool(listing: ToolListing): McpTool {
  return {
    name: listing.name,
    description: listing.description,
    inputSchema: objectSchema(listing.input_schema),
    ...(hasObjectOutput(listing) ? { outputSchema: listing.output_schema as McpTool['outputSchema'] } : {}),
    annotations: { readOnlyHint: !listing.has_side_effects },
    _meta: { tool_type: listing.kind, source: listing.source, version: listing.version ?? null },
  };
}

export function toCallToolResult(result: ToolResult, structured: boolean): CallToolResult {
  const meta = { warnings: result.warnings, metadata: result.metadata };
  if (!result.success) {
    return {
      content: [
        {
          type: 'text',
          text: JSON.stringify({
            error: result.error,
            error_details: result.error_details,
            // A held side effect: the client shows this to a person, who confirms it over the API.
            ...(result.pending_action ? { pending_action: result.pending_action } : {}),
          }),
        },
      ],
      isError: true,
      _meta: meta,
    };
  }
  const text = typeof result.data === 'string' ? result.data : JSON.stringify(result.data ?? null);
  const isObject = typeof result.data === 'object' && result.data !== null && !Array.isArray(result.data);
  return {
    content: [{ type: 'text', text }],
    ...(structured && isObject ? { structuredContent: result.data as Record<string, unknown> } : {}),
    isError: false,
    _meta: meta,
  };
}

/**
 * The tool registry as an MCP server. One `Server` per client session, bound to the caller's
 * principal: it lists the tools the tenant can use, runs them through the registry (validation,
 * timeouts, cancellation) and sends `notifications/tools/list_changed` when that tenant's tool set
 * (or the shared one) changes. It also offers the tenant's documents as read-only resources and its
 * published prompt assets as prompts (McpContentService).
 */
@Injectable()
export class McpToolServer {
  private readonly logger = new Logger(McpToolServer.name);

  constructor(
    private readonly registry: ToolRegistry,
    private readonly content: McpContentService,
  ) {}

  createServer(principal: Principal): Server {
    const server = new (mcpServer().Server)(
      { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
      MCP_SERVER_OPTIONS,
    );
    this.serve(server, principal);
    return server;
  }

  /**
   * Serves the principal's tools, resources and prompts on a server the caller created with
   * MCP_SERVER_OPTIONS (`npm run mcp` connects one before the application boots, so `initialize` is
   * answered at once). Returns the handlers by method, for requests that server took before this call.
   */
  serve(server: Server, principal: Principal): Map<string, McpRequestHandler> {
    const {
      CallToolRequestSchema,
      ErrorCode,
      GetPromptRequestSchema,
      ListPromptsRequestSchema,
      ListResourcesRequestSchema,
      ListToolsRequestSchema,
      McpError,
      ReadResourceRequestSchema,
    } = mcpTypes();
    const handlers = new Map<string, McpRequestHandler>();
    const on = <T extends { parse(data: unknown): unknown; shape: { method: { value: string } } }>(
      schema: T,
      handler: (request: ReturnType<T['parse']>, extra: McpExtra) => ServerResult | Promise<ServerResult>,
    ) => {
      server.setRequestHandler(schema as never, handler);
      handlers.set(schema.shape.method.value, async (request, extra) =>
        handler(schema.parse(request) as ReturnType<T['parse']>, extra),
      );
    };
    on(ListToolsRequestSchema, () => ({
      tools: this.registry
        .list(principal.tenantId)
        .filter((tool) => tool.available)
        .map(toMcpTool),
    }));
    const tenantId = principal.tenantId;
    on(ListResourcesRequestSchema, (request) =>
      runAsTenant(tenantId, () => this.content.listResources(tenantId, request.params?.cursor)),
    );
    on(ReadResourceRequestSchema, (request) =>
      runAsTenant(tenantId, () => this.content.readResource(tenantId, request.params.uri)),
    );
    on(ListPromptsRequestSchema, () => runAsTenant(tenantId, () => this.content.listPrompts(tenantId)));
    on(GetPromptRequestSchema, (request) =>
      runAsTenant(tenantId, () =>
        this.content.getPrompt(tenantId, request.params.name, request.params.arguments),
      ),
    );
    on(CallToolRequestSchema, async (request, extra) => {
      const name = request.params.name;
      const listing = this.registry.definition(principal.tenantId, name);
      if (!listing) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
      if (!roleSatisfiesAny(principal.role, MCP_CALL_ROLES)) {
        return toCallToolResult(
          failedToolResult(
            name,
            ToolErrorCode.FORBIDDEN,
            `Calling tools needs the ${MCP_CALL_ROLES.join(' or ')} role; the key has ${principal.role}.`,
            { required_role: MCP_CALL_ROLES },
          ),
          false,
        );
      }
      try {
        // Over stdio no request context carries the key's tenant: the database scope is set here.
        const result = await runAsTenant(principal.tenantId, () =>
          this.registry.execute(
            {
              tenantId: principal.tenantId,
              userId: principal.userId,
              requestId: randomUUID(),
              traceId: randomUUID(),
              deadline: Date.now() + MCP_CALL_DEADLINE_MS,
              signal: extra.signal,
              caller: 'mcp',
              role: principal.role,
            },
            name,
            request.params.arguments ?? {},
          ),
        );
        return toCallToolResult(result, hasObjectOutput(listing));
      } catch (error) {
        // The tool vanished between lookup and run (an asset archived meanwhile).
        if (error instanceof ToolsException) throw new McpError(ErrorCode.InvalidParams, error.message);
        throw error;
      }
    });

    let pending = false;
    const unsubscribe = this.registry.onChange(({ tenantId }) => {
      if (tenantId !== null && tenantId !== principal.tenantId) return;
      if (pending) return;
      pending = true;
      // One notification per burst of changes (a refresh swaps many tools in the same tick).
      setImmediate(() => {
        pending = false;
        if (!server.transport) return;
        server
          .sendToolListChanged()
          .catch((error: Error) =>
            this.logger.debug({ msg: 'could not send tools/list_changed', error: error.message }),
          );
      });
    });
    const previousOnClose = server.onclose;
    server.onclose = () => {
      unsubscribe();
      previousOnClose?.();
    };
    return handlers;
  }
}
