import { Transform } from 'class-transformer';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { ConfigDoc, HOST_LIST_MESSAGE, HOST_LIST_PATTERN, toNumber } from '@app/platform/config';

/**
 * The asset registry's keys: published-asset caching and the `source` databases catalog sync and sql
 * tools reach.
 */
export class AssetRegistryConfig {
  // Catalog sync: hosts a `source` asset may reach even when they resolve to internal addresses
  // (same syntax as HTTP_TOOL_ALLOWLIST; a Unix socket directory may be listed as a host).
  @ConfigDoc(
    'private hosts (`host`, `host:port`, `*.domain`, a Unix socket directory) `source` databases may reach; loopback, private and metadata addresses are refused otherwise',
    'unset',
  )
  @IsString()
  @Matches(HOST_LIST_PATTERN, { message: HOST_LIST_MESSAGE })
  SOURCE_HOST_ALLOWLIST = '';

  // sql tools and query_sql on a `source` database: one pool per tenant and source, with at most this
  // many connections; a pool unused for SOURCE_POOL_IDLE_SECONDS is closed, and past SOURCE_POOL_MAX_POOLS
  // pools per process the least recently used idle one is closed first.
  @ConfigDoc('sql tools and `query_sql` on a `source` database: connections per tenant and source')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(50)
  SOURCE_POOL_MAX_CONNECTIONS = 2;

  @ConfigDoc('seconds before an unused `source` pool closes')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(86_400)
  SOURCE_POOL_IDLE_SECONDS = 60;

  @ConfigDoc('`source` pools per process (the least recently used idle one closes past it)')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(10_000)
  SOURCE_POOL_MAX_POOLS = 100;

  // Asset registry: how long published lookups stay cached (publish/rollback/archive drop them anyway).
  @ConfigDoc('how long published-asset lookups are cached (a publish, rollback or archive drops them anyway)')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  ASSET_CACHE_TTL_SECONDS = 300;
}
