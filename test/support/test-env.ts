/** Sets environment variables for the duration of a spec file and restores them afterwards. */
export function applyEnv(values: Record<string, string | undefined>): () => void {
  const previous = new Map<string, string | undefined>();
  for (const [key, value] of Object.entries(values)) {
    previous.set(key, process.env[key]);
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  return () => {
    for (const [key, value] of previous) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

export const QUIET_TEST_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
  LOG_FORMAT: 'pretty',
  WRITE_ADMIN_KEY_FILE: 'false',
  // Counted (the guard and its storage run), but high enough that no burst of another test trips it.
  RATE_LIMIT_PER_KEY: '100000',
  RATE_LIMIT_PER_TENANT: '100000',
  // The tenant's cap (MCP_MAX_SESSIONS_PER_TENANT) still applies; specs about the key's share set it.
  MCP_MAX_SESSIONS_PER_KEY: '100000',
  // The embedded sql time budget is per process and hour; the README and demo specs run many sql tools on a
  // loaded machine. Specs about the budget set their own.
  EMBEDDED_SQL_SECONDS_PER_HOUR: '3600',
  SQL_TOOL_SECONDS_PER_HOUR: '3600',
};
