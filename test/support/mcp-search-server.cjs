// An external MCP search server for tests (the seed's `vector-search` / `web-search` servers), over stdio.
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

const server = new McpServer({ name: 'search-test-server', version: '1.0.0' });
const DOCS = [
  { id: 'kb-1', title: 'on-call.md', text: 'The on-call engineer acknowledges a page within five minutes.' },
  { id: 'kb-2', title: 'backups.md', text: 'Backups are restored and checked every Sunday night.' },
];

server.registerTool(
  'search_vector_db',
  {
    description: 'Searches the knowledge base',
    inputSchema: { query: z.string(), top_k: z.number().int().optional() },
    annotations: { readOnlyHint: true },
  },
  ({ query, top_k }) => {
    const words = query.toLowerCase().split(/\W+/).filter(Boolean);
    const results = DOCS.filter((d) => words.some((w) => d.text.toLowerCase().includes(w)))
      .slice(0, top_k ?? 3)
      .map((d, i) => ({ ...d, score: 1 - i * 0.1 }));
    return { content: [{ type: 'text', text: JSON.stringify({ results }) }] };
  },
);

server.registerTool(
  'web',
  { description: 'Searches the web', inputSchema: { q: z.string() }, annotations: { readOnlyHint: true } },
  ({ q }) => ({
    content: [
      {
        type: 'text',
        text: JSON.stringify([
          {
            url: 'https://example.org/news',
            title: 'News about ' + q,
            content: 'Fresh news about ' + q + '.',
          },
          { url: 'ftp://not-a-web-page', title: 'dropped', content: 'dropped' },
        ]),
      },
    ],
  }),
);

server.registerTool(
  'broken',
  { description: 'Always fails', inputSchema: { query: z.string() }, annotations: { readOnlyHint: true } },
  () => ({ content: [{ type: 'text', text: 'index unavailable' }], isError: true }),
);

server.connect(new StdioServerTransport()).catch((error) => {
  process.stderr.write(`search server failed: ${error.message}\n`);
  process.exit(1);
});
