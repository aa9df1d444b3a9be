import { parseMcpServers } from './mcp-servers.config';

describe('parseMcpServers', () => {
  it('accepts stdio and http servers', () => {
    expect(
      parseMcpServers(
        JSON.stringify([
          { name: 'fs', command: 'node', args: ['server.js'], env: { A: '1' } },
          {
            name: 'web-search',
            url: 'https://mcp.example/mcp',
            headers: { Authorization: 'x' },
            timeout_ms: 500,
          },
        ]),
      ).map((s) => s.name),
    ).toEqual(['fs', 'web-search']);
    expect(parseMcpServers(undefined)).toEqual([]);
    expect(parseMcpServers('  ')).toEqual([]);
  });

  it('lists every problem at once', () => {
    let message = '';
    try {
      parseMcpServers(
        JSON.stringify([
          { name: 'a__b', command: 'x' },
          { name: 'ok', command: 'x', url: 'http://y' },
          { name: 'ok', url: 'ftp://y', args: 'no' },
          { name: 'fine', command: 'x', timeout_ms: -1, env: { A: 1 } },
          'nope',
        ]),
      );
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/MCP_SERVERS\[0\]\.name/);
    expect(message).toMatch(/MCP_SERVERS\[1\] needs either/);
    expect(message).toMatch(/MCP_SERVERS\[2\]\.name "ok" is used twice/);
    expect(message).toMatch(/MCP_SERVERS\[2\]\.args/);
    expect(message).toMatch(/MCP_SERVERS\[3\]\.env/);
    expect(message).toMatch(/MCP_SERVERS\[3\]\.timeout_ms/);
    expect(message).toMatch(/MCP_SERVERS\[4\] must be an object/);
    expect(() => parseMcpServers('{"name":"x"}')).toThrow(/JSON array/);
  });
});
