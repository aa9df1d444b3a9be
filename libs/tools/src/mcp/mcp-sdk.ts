/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, see below */
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as ClientHttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as ClientStdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as ServerModule from '@modelcontextprotocol/sdk/server/index.js';
import type * as ServerHttpModule from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

/*
 * The MCP SDK's modules, each loaded when first used rather than when the server starts: with zod (its
 * schemas are built as the modules load) they were ~0.1 s of CPU of every start, before readiness, and a
 * server that no MCP client talks to and that has no MCP_SERVERS never needs them. Types are imported
 * with `import type` (erased); values come from these functions. The stdio entry (`npm run mcp`) loads
 * the SDK itself at once, to answer `initialize` before the application boots.
 */
let types: typeof TypesModule | undefined;
let server: typeof ServerModule | undefined;
let serverHttp: typeof ServerHttpModule | undefined;
let client: typeof ClientModule | undefined;
let clientHttp: typeof ClientHttpModule | undefined;
let clientStdio: typeof ClientStdioModule | undefined;

export const mcpTypes = (): typeof TypesModule =>
  (types ??= require('@modelcontextprotocol/sdk/types.js') as typeof TypesModule);
export const mcpServer = (): typeof ServerModule =>
  (server ??= require('@modelcontextprotocol/sdk/server/index.js') as typeof ServerModule);
export const mcpServerHttp = (): typeof ServerHttpModule =>
  (serverHttp ??= require('@modelcontextprotocol/sdk/server/streamableHttp.js') as typeof ServerHttpModule);
export const mcpClient = (): typeof ClientModule =>
  (client ??= require('@modelcontextprotocol/sdk/client/index.js') as typeof ClientModule);
export const mcpClientHttp = (): typeof ClientHttpModule =>
  (clientHttp ??= require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof ClientHttpModule);
export const mcpClientStdio = (): typeof ClientStdioModule =>
  (clientStdio ??= require('@modelcontextprotocol/sdk/client/stdio.js') as typeof ClientStdioModule);

/**
 * Loads the server side of the SDK now. The server's main() calls it a moment after it is ready, so that
 * the first MCP session does not block the event loop for the load (long enough on a busy machine for
 * Redis commands in flight to time out).
 */
export function preloadMcpServerSdk(): void {
  mcpTypes();
  mcpServer();
  mcpServerHttp();
}
