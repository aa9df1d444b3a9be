/** One external MCP server from `MCP_SERVERS`: a command spoken to over stdio, or a streamable HTTP URL. */
export interface McpServerConfig {
  name: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /** Per call; also bounds the initial handshake. */
  timeout_ms?: number;
}

export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*[A-Za-z0-9]$|^[A-Za-z0-9]$/;
export const MCP_DEFAULT_TIMEOUT_MS = 30_000;

function isStringMap(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}

/** Parses and checks `MCP_SERVERS`; throws one error listing every problem (the service refuses to boot). */
export function parseMcpServers(raw: string | undefined): McpServerConfig[] {
  if (!raw || !raw.trim()) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('MCP_SERVERS must be a JSON array');
  }
  if (!Array.isArray(parsed)) throw new Error('MCP_SERVERS must be a JSON array');
  const problems: string[] = [];
  const names = new Set<string>();
  parsed.forEach((entry: unknown, index) => {
    const at = `MCP_SERVERS[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${at} must be an object`);
      return;
    }
    const server = entry as Record<string, unknown>;
    if (typeof server.name !== 'string' || !MCP_SERVER_NAME_PATTERN.test(server.name)) {
      problems.push(
        `${at}.name must be letters, digits, - or single _ (it prefixes tools as <name>__<tool>)`,
      );
    } else if (names.has(server.name)) {
      problems.push(`${at}.name "${server.name}" is used twice`);
    } else names.add(server.name);
    const hasCommand = typeof server.command === 'string' && server.command.length > 0;
    const hasUrl = typeof server.url === 'string' && /^https?:\/\//.test(server.url);
    if (hasCommand === hasUrl) problems.push(`${at} needs either "command" or an http(s) "url"`);
    if (
      server.args !== undefined &&
      !(Array.isArray(server.args) && server.args.every((a) => typeof a === 'string'))
    )
      problems.push(`${at}.args must be an array of strings`);
    if (server.env !== undefined && !isStringMap(server.env))
      problems.push(`${at}.env must map names to strings`);
    if (server.headers !== undefined && !isStringMap(server.headers))
      problems.push(`${at}.headers must map names to strings`);
    if (server.cwd !== undefined && typeof server.cwd !== 'string')
      problems.push(`${at}.cwd must be a string`);
    if (
      server.timeout_ms !== undefined &&
      !(typeof server.timeout_ms === 'number' && Number.isInteger(server.timeout_ms) && server.timeout_ms > 0)
    )
      problems.push(`${at}.timeout_ms must be a positive integer`);
  });
  if (problems.length) throw new Error(`Invalid MCP_SERVERS:\n- ${problems.join('\n- ')}`);
  return parsed as McpServerConfig[];
}
