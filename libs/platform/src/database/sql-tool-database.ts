import { DataSource } from 'typeorm';
import { APP_ROLE, SQL_TOOL_ROLE } from '@app/migrations';
import { buildDataSourceOptions } from './data-source-options';

/**
 * The connections the sql tool's queries run on. Native: a pool of its own that logs in as
 * `ops_sql_tool`, so no statement can return to a more privileged role (`RESET ROLE` returns to the
 * login role itself). Embedded, or a native DATABASE_SQL_TOOL_URL that logs in as another role: the
 * query's transaction switches to `switchToRole` with SET LOCAL ROLE (a wall a statement could undo,
 * SECURITY.md).
 */
export class SqlToolDatabase {
  constructor(
    readonly dataSource: DataSource,
    /** The role each transaction must switch to; null: the connection already is that role. */
    readonly switchToRole: string | null,
    private readonly ownsDataSource: boolean,
    /**
     * sql tool queries this process runs at once (SQL_TOOL_MAX_CONCURRENT): the native pool's size;
     * embedded, 1 unless set (the database runs one statement at a time, a second query waits outside it).
     */
    readonly concurrency = 1,
  ) {}

  async close(): Promise<void> {
    if (this.ownsDataSource && this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/** `url` with `role` as its user when it logs in as the application role; otherwise `url` itself. */
export function roleUrl(url: string | undefined, role: string): string | undefined {
  if (!url) return url;
  const parsed = new URL(url);
  if (decodeURIComponent(parsed.username) !== APP_ROLE) return url;
  parsed.username = role;
  return parsed.toString();
}

/** Opens the sql tool's own pool (native) or shares the application's (embedded: `databaseUrl` unset). */
export async function openSqlToolDatabase(
  application: DataSource,
  settings: { databaseUrl?: string; poolSize: number; statementTimeoutMs: number },
  embeddedConcurrency = 1,
): Promise<SqlToolDatabase> {
  if (!settings.databaseUrl)
    return new SqlToolDatabase(application, SQL_TOOL_ROLE, false, embeddedConcurrency);
  const dataSource = new DataSource(
    buildDataSourceOptions({ ...settings, applicationName: 'ops-api-sql-tool' }),
  );
  await dataSource.initialize();
  try {
    const [login]: Array<{ name: string }> = await dataSource.query('SELECT current_user AS name');
    return new SqlToolDatabase(
      dataSource,
      login.name === SQL_TOOL_ROLE ? null : SQL_TOOL_ROLE,
      true,
      settings.poolSize,
    );
  } catch (error) {
    await dataSource.destroy().catch(() => undefined);
    throw error;
  }
}
