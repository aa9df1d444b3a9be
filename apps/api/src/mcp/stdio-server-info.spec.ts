import { MCP_SERVER_NAME, MCP_SERVER_OPTIONS, MCP_SERVER_VERSION } from '@app/tools';
import { MCP_STDIO_INFO, MCP_STDIO_OPTIONS } from './stdio-server-info';

describe('the stdio MCP server’s early initialize answer', () => {
  it('is the tools library’s server info, capabilities and instructions', () => {
    expect(MCP_STDIO_INFO).toEqual({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION });
    expect(MCP_STDIO_OPTIONS).toEqual(MCP_SERVER_OPTIONS);
  });
});
