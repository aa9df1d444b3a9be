import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { INestApplicationContext } from '@nestjs/common';
import type { McpRequestHandler } from '@app/tools';
import { MCP_STDIO_INFO, MCP_STDIO_OPTIONS } from './stdio-server-info';

/** Boot starts at the latest this long after the transport is up, if no client has initialized by then. */
const BOOT_AFTER_MS = 300;

/**
 * `npm run mcp`: the tool registry as an MCP server on stdin/stdout, for MCP clients that launch a
 * command (Claude Desktop, IDEs). The API key in OPS_API_KEY (else OPS_KEY, as the quick start exports it) picks the tenant and role. It opens the
 * database itself, like the CLI: with the embedded database, stop the API server first (or connect
 * the client to the running server's /mcp endpoint instead). stdout carries only the protocol; logs
 * go to stderr.
 *
 * The server answers `initialize` before the application boots: only the MCP SDK is loaded at start,
 * and the application (whose modules take seconds to load on a busy machine, blocking the event loop)
 * is loaded once the client has initialized. Requests that arrive meanwhile wait for it.
 */
function main(): void {
  const apiKey = (process.env.OPS_API_KEY || process.env.OPS_KEY)?.trim();
  if (!apiKey) {
    process.stderr.write(
      'OPS_API_KEY is required (or OPS_KEY, as the quick start exports it): the API key whose tenant and role the MCP session uses.\n',
    );
    process.exit(2);
  }
  const server = new Server(MCP_STDIO_INFO, MCP_STDIO_OPTIONS);
  let app: INestApplicationContext | undefined;
  let booting: Promise<Map<string, McpRequestHandler>> | undefined;
  const boot = () => {
    booting ??= bootApplication(server, apiKey, (context) => (app = context));
    // A failed boot is reported (and the process ends) in bootApplication; requests see its error.
    booting.catch(() => undefined);
    return booting;
  };
  server.fallbackRequestHandler = async (request, extra) => {
    let handlers: Map<string, McpRequestHandler>;
    try {
      handlers = await boot();
    } catch (error) {
      throw new McpError(ErrorCode.InternalError, (error as Error).message);
    }
    const handler = handlers.get(request.method);
    if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    return handler(request, extra);
  };

  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    // The boot runs to its end even when the client is gone at once: a refused key still says so (exit 1).
    await boot().catch(() => undefined);
    await app?.close().catch(() => undefined);
    process.exit(code);
  };
  server.onclose = () => void shutdown(0);
  process.stdin.on('end', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  process.on('SIGINT', () => void shutdown(0));

  server
    .connect(new StdioServerTransport())
    .then(() => {
      server.oninitialized = () => void boot();
      setTimeout(() => void boot(), BOOT_AFTER_MS).unref();
    })
    .catch(fail);
}

async function bootApplication(
  server: Server,
  apiKey: string,
  opened: (app: INestApplicationContext) => void,
): Promise<Map<string, McpRequestHandler>> {
  await import('reflect-metadata');
  const [{ NestFactory }, platform, { McpToolServer }, { AppModule }, { validateEnvironment }] =
    await Promise.all([
      import('@nestjs/core'),
      import('@app/platform'),
      import('@app/tools'),
      import('../app.module'),
      import('../config-schemas'),
    ]);
  let env;
  try {
    env = validateEnvironment(process.env);
  } catch (error) {
    if (error instanceof platform.InvalidEnvironmentError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const app = await NestFactory.createApplicationContext(AppModule.forRoot({ schedulers: false }), {
    logger: new platform.JsonLogger({
      level: env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL,
      format: env.LOG_FORMAT,
      stream: process.stderr,
    }),
    abortOnError: false,
  });
  opened(app);
  let principal;
  try {
    principal = await app.get(platform.AuthService).authenticate(apiKey);
  } catch (error) {
    process.stderr.write(`OPS_API_KEY was refused: ${(error as Error).message}\n`);
    await app.close().catch(() => undefined);
    process.exit(1);
  }
  const handlers = app.get(McpToolServer).serve(server, principal);
  process.stderr.write(
    `MCP server ready on stdio (tenant ${principal.tenantSlug}, role ${principal.role})\n`,
  );
  return handlers;
}

function fail(error: unknown): void {
  process.stderr.write(`MCP server failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

try {
  main();
} catch (error) {
  fail(error);
}
