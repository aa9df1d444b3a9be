import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppException, TenantSecretsService } from '@app/platform';
import type { CatalogContent, CatalogTable, SourceContent } from '../asset-contents';
import type { AssetView } from '../asset.types';
import { AssetRegistryException, AssetRegistryExceptionCode as Code } from '../asset-registry.exception';
import { type Actor, AssetRegistryService } from '../lifecycle/asset-registry.service';
import { PublishedAssetReader } from '../reading/published-asset.reader';
import { CatalogIntrospectionRepository, type SqlRunner } from './catalog-introspection.repository';
import { SourceConnector } from './source-connector';

/** The service's own bookkeeping: never part of a catalog of operations data unless asked for by name. */
const INTERNAL_TABLES = [
  'migrations',
  'typeorm_metadata',
  'tenants',
  'api_keys',
  'tb_asset_registry',
  'tb_asset_version_history',
  'documents',
  'document_chunks',
  'document_corpus',
  'document_jobs',
  'chunk_embeddings',
  'ops_stage_runs',
  'ops_demo_loads',
];

/** PostgreSQL's own schemas: never catalogued (they describe the server, not operations data). */
const SYSTEM_SCHEMA = /^(pg_|information_schema$)/i;

/** Who syncs: only a system admin may describe the service's own database. */
export interface CatalogSyncActor extends Actor {
  isSystemAdmin?: boolean;
}

export interface CatalogSyncInput {
  /** The catalog asset to create or update (its draft). */
  name: string;
  description?: string;
  /** A published source asset; absent: the service's own database. */
  source?: string;
  schema?: string;
  tables?: string[];
  exclude_tables?: string[];
  enum_max_distinct?: number;
  enum_sample_rows?: number;
}

export interface CatalogSyncResult {
  asset: AssetView;
  created: boolean;
  summary: { tables: number; columns: number; enum_columns: number };
}

/** Keeps what admins wrote (descriptions, aliases, enum values) where the database has nothing to say. */
export function mergeCatalogTables(
  fresh: CatalogTable[],
  previous: CatalogTable[] | undefined,
): CatalogTable[] {
  const oldTables = new Map((previous ?? []).map((t) => [t.name, t]));
  return fresh.map((table) => {
    const old = oldTables.get(table.name);
    if (!old) return table;
    const oldColumns = new Map(old.columns.map((c) => [c.name, c]));
    return {
      ...table,
      description: table.description ?? old.description ?? null,
      columns: table.columns.map((column) => {
        const was = oldColumns.get(column.name);
        if (!was) return column;
        const enumValues = column.enum_values ?? was.enum_values;
        return {
          ...column,
          description: column.description ?? was.description ?? null,
          ...(was.aliases ? { aliases: was.aliases } : {}),
          ...(enumValues ? { enum_values: enumValues } : {}),
        };
      }),
    };
  });
}

/** Describes a database as a draft catalog asset an admin can then edit and publish. */
@Injectable()
export class CatalogSyncService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly introspection: CatalogIntrospectionRepository,
    private readonly assets: AssetRegistryService,
    private readonly reader: PublishedAssetReader,
    private readonly connector: SourceConnector,
    private readonly secrets: TenantSecretsService,
  ) {}

  async sync(actor: CatalogSyncActor, input: CatalogSyncInput): Promise<CatalogSyncResult> {
    if (!input.source && !actor.isSystemAdmin) {
      // The service database holds every tenant's rows; a tenant describes its own databases.
      throw new AssetRegistryException(
        Code.CATALOG_SYNC_FORBIDDEN,
        'Only a system admin may sync the service’s own database; name a published source asset ' +
          '(`source`) to sync your own database.',
      );
    }
    const source = input.source ? await this.sourceContent(actor.tenantId, input.source) : null;
    const schema = input.schema ?? source?.schema ?? 'public';
    if (SYSTEM_SCHEMA.test(schema)) {
      throw new AssetRegistryException(
        Code.CATALOG_SOURCE_INVALID,
        `Schema ${schema} is a PostgreSQL system schema and is never catalogued`,
        { schema },
      );
    }
    const options = {
      schema,
      tables: input.tables,
      excludeTables: input.exclude_tables ?? [],
      unsampledTables: [] as string[],
      enumMaxDistinct: input.enum_max_distinct ?? 20,
      enumSampleRows: input.enum_sample_rows ?? 100_000,
    };
    let fresh: CatalogTable[];
    if (source) {
      fresh = await this.withSource(actor.tenantId, source, (run) =>
        this.introspection.introspect(run, options),
      );
    } else {
      const run: SqlRunner = (sql, params) => this.dataSource.query(sql, params);
      // The service's own tables (bookkeeping, and every table with per-tenant rows) are left out
      // unless named, and even then only described: sampling them would copy other tenants' values.
      const own = [...INTERNAL_TABLES, ...(await this.introspection.tenantOwnedTables(run, schema))];
      options.excludeTables = [...own, ...options.excludeTables];
      options.unsampledTables = own;
      fresh = await this.introspection.introspect(run, options);
    }
    if (input.tables) {
      const missing = input.tables.filter((t) => !fresh.some((f) => f.name === t));
      if (missing.length > 0) {
        throw new AssetRegistryException(
          Code.CATALOG_SOURCE_INVALID,
          `Schema ${schema} has no table ${missing.join(', ')}`,
          { missing },
        );
      }
    }
    const existing = await this.assets.findByName(actor.tenantId, 'catalog', input.name);
    const previous = existing?.content as CatalogContent | undefined;
    const content: CatalogContent = {
      source: {
        kind: source ? 'source_asset' : 'internal',
        ...(input.source ? { name: input.source } : {}),
        schema,
        synced_at: new Date().toISOString(),
      },
      tables: mergeCatalogTables(fresh, previous?.tables),
    };
    const asset = existing
      ? await this.assets.update(actor, existing.id, {
          ...(input.description !== undefined ? { description: input.description } : {}),
          spec: { content },
        })
      : await this.assets.create(actor, {
          asset_type: 'catalog',
          name: input.name,
          description: input.description ?? `Tables of ${input.source ?? 'the service database'} (${schema})`,
          tags: ['catalog-sync'],
          spec: { content },
        });
    const columns = content.tables.flatMap((t) => t.columns);
    return {
      asset,
      created: !existing,
      summary: {
        tables: content.tables.length,
        columns: columns.length,
        enum_columns: columns.filter((c) => c.enum_values && c.enum_values.length > 0).length,
      },
    };
  }

  private async sourceContent(tenantId: string, name: string): Promise<SourceContent> {
    const published = await this.reader.getPublished(tenantId, 'source', name);
    if (!published) {
      throw new AssetRegistryException(
        Code.CATALOG_SOURCE_INVALID,
        `No published source asset named "${name}"`,
      );
    }
    return published.snapshot.content as SourceContent;
  }

  /** A source's credential reference, resolved in the syncing tenant's namespace only. */
  private async secret(tenantId: string, ref: string, field: string): Promise<string> {
    try {
      return await this.secrets.resolve(tenantId, ref);
    } catch (error) {
      if (!(error instanceof AppException)) throw error;
      throw new AssetRegistryException(Code.CATALOG_SOURCE_INVALID, `${field}: ${error.message}`, {
        secret_ref: ref,
      });
    }
  }

  private async withSource<T>(
    tenantId: string,
    source: SourceContent,
    work: (run: SqlRunner) => Promise<T>,
  ): Promise<T> {
    const c = source.connection;
    const client = await this.connector.connect({
      ...(c.url_ref
        ? { url: await this.secret(tenantId, c.url_ref, 'connection.url_ref') }
        : { host: c.host, port: c.port, database: c.database, user: c.user }),
      ...(c.password_ref
        ? { password: await this.secret(tenantId, c.password_ref, 'connection.password_ref') }
        : {}),
      ssl: c.ssl,
    });
    try {
      const run: SqlRunner = async <T>(sql: string, params: unknown[]) =>
        (await client.query(sql, params)).rows as T[];
      return await work(run);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
