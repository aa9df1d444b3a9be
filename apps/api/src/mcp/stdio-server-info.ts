/**
 * What `npm run mcp` answers to `initialize`, before the application (and with it @app/tools) is loaded:
 * a copy of the tools library's MCP_SERVER_NAME, MCP_SERVER_VERSION and MCP_SERVER_OPTIONS, which
 * stdio-server-info.spec.ts keeps equal. This file may import nothing heavy.
 */
export const MCP_STDIO_INFO = { name: 'ops-copilot', version: '0.1.0' };
export const MCP_STDIO_OPTIONS = {
  capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
  instructions:
    'Operations tools of this tenant: configuration items, metrics, history, dependency graphs, documents ' +
    'and the tenant’s own http/sql tools and published stages. Results are JSON text. Resources are the ' +
    'tenant’s documents (read-only); prompts are its published prompt assets.',
};
