import { Transform } from 'class-transformer';
import { IsInt, IsJSON, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import {
  ConfigDoc,
  emptyToUndefined,
  HOST_LIST_MESSAGE,
  HOST_LIST_PATTERN,
  toNumber,
} from '@app/platform/config';

/**
 * The tools lib's keys: http tool egress, MCP (servers it connects to, sessions it serves), stages,
 * tool slots and confirmations.
 */
export class ToolsConfig {
  // Tools (http tools and MCP): hosts http tools may reach even when they resolve to internal
  // addresses (`host[:port],*.corp.example`), and external MCP servers to connect to (JSON array).
  @ConfigDoc(
    'private hosts (`host`, `host:port`, `*.domain`) http tools may reach; loopback, private and metadata addresses are refused otherwise',
    'unset',
  )
  @IsString()
  @Matches(HOST_LIST_PATTERN, { message: HOST_LIST_MESSAGE })
  HTTP_TOOL_ALLOWLIST = '';

  @ConfigDoc(
    'external MCP servers whose tools join the registry at startup, a JSON array ([MCP](api-tools-mcp.md))',
    'unset',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsJSON({ message: 'must be a JSON array of MCP servers' })
  MCP_SERVERS?: string;

  @ConfigDoc('tools one stage runs at once ([stages](api-ops.md#ops-data-tools-and-stages-api))')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(64)
  STAGE_MAX_CONCURRENCY = 4;

  @ConfigDoc("a stage's default deadline")
  @Transform(toNumber)
  @IsInt()
  @Min(100)
  @Max(600_000)
  STAGE_TIMEOUT_MS = 60_000;

  // MCP over streamable HTTP: one tenant may hold only its share of the sessions. Counted across every
  // replica when REDIS_URL is set, per process otherwise.
  @ConfigDoc('MCP HTTP sessions in all (503 beyond; across all replicas with `REDIS_URL`)')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100_000)
  MCP_MAX_SESSIONS = 1000;

  @ConfigDoc('MCP HTTP sessions per tenant (429 beyond; across all replicas with `REDIS_URL`)')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100_000)
  MCP_MAX_SESSIONS_PER_TENANT = 20;

  @ConfigDoc(
    "one API key's share of its tenant's MCP sessions (at most `MCP_MAX_SESSIONS_PER_TENANT`; 429 with `Retry-After` beyond), so one key cannot lock the tenant's other keys out",
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100_000)
  MCP_MAX_SESSIONS_PER_KEY = 5;

  @ConfigDoc('an MCP session nobody used for this long is closed (its event stream too)')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(86_400)
  MCP_SESSION_IDLE_SECONDS = 300;

  @ConfigDoc(
    'tool runs per tenant at once (HTTP, plans, agent, MCP together; across all replicas with `REDIS_URL`, per process without)',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(1000)
  TOOL_MAX_CONCURRENT_PER_TENANT = 4;

  @ConfigDoc("how long a tool run waits for its tenant's slot, then 429 `TOOLS_BUSY`")
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(60_000)
  TOOL_QUEUE_WAIT_MS = 2000;

  /**
   * A running tool's slot (tenant budget, tool_access max_concurrent) is a lease renewed every third of
   * this while it runs: a replica that dies mid-run frees its slots after at most this long.
   */
  @ConfigDoc(
    "a running tool's slot is a lease renewed while it runs; a replica that dies mid-run frees its slots after this long",
  )
  @Transform(toNumber)
  @IsInt()
  @Min(2)
  @Max(3600)
  TOOL_SLOT_LEASE_SECONDS = 30;

  @ConfigDoc('how long a side-effect tool call waits for a human confirmation')
  @Transform(toNumber)
  @IsInt()
  @Min(10)
  @Max(7 * 24 * 3600)
  TOOL_ACTION_TTL_SECONDS = 900;
}
