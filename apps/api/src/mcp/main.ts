import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { AuthService, InvalidEnvironmentError, JsonLogger, validateEnvironment } from '@app/platform';
import { McpToolServer } from '@app/tools';
import { AppModule } from '../app.module';

/**
 * `npm run mcp`: the tool registry as an MCP server on stdin/stdout, for MCP clients that launch a
 * command (Claude Desktop, IDEs). The API key in OPS_API_KEY picks the tenant and role. It opens the
 * database itself, like the CLI: with the embedded database, stop the API server first (or connect
 * the client to the running server's /mcp endpoint instead). stdout carries only the protocol; logs
 * go to stderr.
 */
async function main(): Promise<void> {
  let env;
  try {
    env = validateEnvironment(process.env);
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const apiKey = process.env.OPS_API_KEY?.trim();
  if (!apiKey) {
    process.stderr.write(
      'OPS_API_KEY is required: the API key whose tenant and role the MCP session uses.\n',
    );
    process.exit(2);
  }
  const app = await NestFactory.createApplicationContext(AppModule.forRoot({ schedulers: false }), {
    logger: new JsonLogger({
      level: env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL,
      format: env.LOG_FORMAT,
      stream: process.stderr,
    }),
    abortOnError: false,
  });
  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    await app.close().catch(() => undefined);
    process.exit(code);
  };

  let principal;
  try {
    principal = await app.get(AuthService).authenticate(apiKey);
  } catch (error) {
    process.stderr.write(`OPS_API_KEY was refused: ${(error as Error).message}\n`);
    await shutdown(1);
    return;
  }
  const server = app.get(McpToolServer).createServer(principal);
  const transport = new StdioServerTransport();
  const unsubscribe = server.onclose;
  server.onclose = () => {
    unsubscribe?.();
    void shutdown(0);
  };
  process.stdin.on('end', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  process.on('SIGINT', () => void shutdown(0));
  await server.connect(transport);
  process.stderr.write(
    `MCP server ready on stdio (tenant ${principal.tenantSlug}, role ${principal.role})\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`MCP server failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
