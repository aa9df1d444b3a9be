// A tiny external MCP server for tests, spoken to over stdio: `echo`, `pid` (to kill it) and `fail`.
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

const server = new McpServer({ name: 'echo-test-server', version: '1.0.0' });

server.registerTool(
  'echo',
  {
    description: 'Echoes the text back',
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: true },
  },
  ({ text }) => ({
    content: [{ type: 'text', text: JSON.stringify({ echo: text, server: process.env.ECHO_LABEL ?? null }) }],
  }),
);

// Read-only tools say so: an external tool without readOnlyHint has side effects and waits for a
// person's confirmation when an MCP client, agent or plan calls it.
server.registerTool(
  'pid',
  { description: 'The server process id', annotations: { readOnlyHint: true } },
  () => ({
    content: [{ type: 'text', text: JSON.stringify({ pid: process.pid }) }],
  }),
);

server.registerTool('fail', { description: 'Always fails', annotations: { readOnlyHint: true } }, () => ({
  content: [{ type: 'text', text: 'this tool always fails' }],
  isError: true,
}));

server.connect(new StdioServerTransport()).catch((error) => {
  process.stderr.write(`echo server failed: ${error.message}\n`);
  process.exit(1);
});
