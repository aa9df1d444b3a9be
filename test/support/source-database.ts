import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { NATIVE_ADMIN_URL } from './test-backend';

/** Seed 004's `postgres_prod`: servers and their metrics, and a function that writes as its owner. */
const SEED_004_SCHEMA = (reader: string, password: string) => `
  CREATE TABLE servers (
    server_id varchar PRIMARY KEY,
    status varchar NOT NULL CHECK (status IN ('running', 'stopped', 'error')),
    environment varchar NOT NULL CHECK (environment IN ('prod', 'staging', 'dev'))
  );
  COMMENT ON TABLE servers IS '서버 정보';
  COMMENT ON COLUMN servers.server_id IS '서버 고유 ID (sys-xxx 형식)';
  COMMENT ON COLUMN servers.status IS '서버 상태 (running, stopped, error)';
  COMMENT ON COLUMN servers.environment IS '환경 (prod, staging, dev)';
  CREATE TABLE metrics (
    server_id varchar NOT NULL REFERENCES servers (server_id),
    metric_name varchar NOT NULL,
    value numeric NOT NULL,
    "timestamp" timestamp NOT NULL
  );
  COMMENT ON TABLE metrics IS '성능 메트릭';
  COMMENT ON COLUMN metrics.metric_name IS '메트릭 이름 (cpu_usage, memory_usage)';
  INSERT INTO servers
  SELECT 'sys-' || i, CASE WHEN i % 7 = 0 THEN 'stopped' ELSE 'running' END, (ARRAY['prod', 'staging', 'dev'])[1 + i % 3]
    FROM generate_series(1, 30) i;
  INSERT INTO metrics
  SELECT 'sys-' || (1 + i % 30), (ARRAY['cpu_usage', 'memory_usage'])[1 + i % 2], (i * 37) % 100, now() - i * interval '1 hour'
    FROM generate_series(1, 600) i;
  -- Writes as its owner whoever calls it: only a read-only transaction can stop it.
  CREATE FUNCTION record_probe() RETURNS int LANGUAGE sql SECURITY DEFINER
    AS $$ INSERT INTO servers VALUES ('sys-probe', 'running', 'dev') RETURNING 1 $$;
  CREATE ROLE ${reader} LOGIN PASSWORD '${password}';
  GRANT SELECT ON servers, metrics TO ${reader};
  GRANT EXECUTE ON FUNCTION record_probe() TO ${reader};
`;

/** A throwaway second database on the local PostgreSQL, reached over TCP like a tenant's own database. */
export interface SourceDatabase {
  name: string;
  /** A login role that may only read `servers` and `metrics`. */
  reader: string;
  password: string;
  host: string;
  port: number;
  /** The reader's connection URL. */
  url: string;
  /** Runs SQL on the source database as its owner. */
  admin<T>(work: (client: Client) => Promise<T>): Promise<T>;
  drop(): Promise<void>;
}

async function withClient<T>(database: string, work: (client: Client) => Promise<T>): Promise<T> {
  const url = new URL(NATIVE_ADMIN_URL);
  url.pathname = `/${database}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates `ops_source_<random>` with seed 004's tables and a read-only role; `drop()` removes both. */
export async function createSourceDatabase(): Promise<SourceDatabase> {
  const suffix = randomBytes(4).toString('hex');
  const name = `ops_source_${suffix}`;
  const reader = `ops_source_reader_${suffix}`;
  const password = randomBytes(9).toString('hex');
  const native = new URL(NATIVE_ADMIN_URL);
  const host = native.hostname;
  const port = Number(native.port || 5432);
  await withClient('postgres', (c) => c.query(`CREATE DATABASE ${name}`));
  try {
    await withClient(name, (c) => c.query(SEED_004_SCHEMA(reader, password)));
  } catch (error) {
    await withClient('postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    throw error;
  }
  return {
    name,
    reader,
    password,
    host,
    port,
    url: `postgres://${reader}:${password}@${host}:${port}/${name}`,
    admin: (work) => withClient(name, work),
    drop: () =>
      withClient('postgres', async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.query(`DROP ROLE IF EXISTS ${reader}`);
      }),
  };
}
