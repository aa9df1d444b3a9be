import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { JsonSchema, Tool, ToolContext, ToolDefinition, ToolError, ToolOutput } from '../core/tool.types';
import { mcpTypes } from './mcp-sdk';

export const MCP_TOOL_SEPARATOR = '__';

export enum McpToolErrorCode {
  MCP_TOOL_ERROR = 'MCP_TOOL_ERROR',
  MCP_SERVER_ERROR = 'MCP_SERVER_ERROR',
}

/** Our validator is draft-07 Ajv: drop `$schema` so a server announcing 2020-12 still registers. */
function sanitizeSchema(schema: Record<string, unknown> | undefined): JsonSchema | null {
  if (!schema) return null;
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

type ContentItem = { type: string; text?: string } & Record<string, unknown>;

function contentToData(content: ContentItem[]): unknown {
  if (content.length === 1 && content[0].type === 'text') {
    const text = content[0].text ?? '';
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return content.map((item) => (item.type === 'text' ? item.text : item));
}

export interface McpRemoteToolLink {
  server: string;
  /** The live client, or null while the server is down. */
  client(): Client | null;
  /** A call failed below the MCP layer (connection gone): the connection reconnects. */
  reportTransportFailure(error: Error): void;
}

/** A tool of an external MCP server, registered as `<server>__<tool>`. */
export class McpRemoteTool implements Tool {
  readonly definition: ToolDefinition;

  constructor(
    private readonly remote: McpTool,
    private readonly link: McpRemoteToolLink,
    timeoutMs: number,
  ) {
    this.definition = {
      name: `${link.server}${MCP_TOOL_SEPARATOR}${remote.name}`,
      description: remote.description ?? remote.title ?? remote.name,
      kind: 'mcp',
      input_schema: sanitizeSchema(remote.inputSchema) ?? { type: 'object' },
      output_schema: sanitizeSchema(remote.outputSchema),
      has_side_effects: remote.annotations?.readOnlyHint !== true,
      timeout_ms: timeoutMs,
      source: 'mcp',
      tags: [`mcp:${link.server}`],
    };
  }

  async execute(context: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    const client = this.link.client();
    if (!client) throw new ToolError('UNAVAILABLE', `MCP server ${this.link.server} is not connected.`);
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await client.callTool({ name: this.remote.name, arguments: input }, undefined, {
        signal: context.signal,
        timeout: Math.max(1, context.deadline - Date.now()),
      });
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (!(error instanceof mcpTypes().McpError)) this.link.reportTransportFailure(error as Error);
      throw new ToolError(
        McpToolErrorCode.MCP_SERVER_ERROR,
        `MCP server ${this.link.server}: ${(error as Error).message}`,
        {
          server: this.link.server,
        },
      );
    }
    const content = (Array.isArray(result.content) ? result.content : []) as ContentItem[];
    if (result.isError) {
      const message = content
        .filter((item) => item.type === 'text')
        .map((item) => item.text)
        .join('\n');
      throw new ToolError(
        McpToolErrorCode.MCP_TOOL_ERROR,
        message || `${this.definition.name} reported an error.`,
        {
          server: this.link.server,
        },
      );
    }
    const data = result.structuredContent ?? contentToData(content);
    return { data, metadata: { mcp_server: this.link.server } };
  }
}
