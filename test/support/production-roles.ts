import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { withDatabase } from './test-backend';

/** The owner role of docs/operations.md "Production database roles": migrations run as it. */
export const OWNER_ROLE = 'ops_owner';

/**
 * The SQL statements of docs/operations.md "Production database roles", as written there: the native test tier
 * sets its databases up with exactly these, so the path the documentation tells operators to use is the
 * one every test runs.
 */
export function readmeRoleRecipe(): string[] {
  const page = readFileSync(path.join(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8');
  const start = page.indexOf('\n## Production database roles\n');
  if (start < 0) throw new Error('docs/operations.md has no "## Production database roles" section');
  const section = page.slice(start);
  const match = /psql -v ON_ERROR_STOP=1 <<'SQL'\n([\s\S]*?)\nSQL\n/.exec(section);
  if (!match) throw new Error('docs/operations.md "Production database roles" has no psql <<SQL block');
  return match[1]
    .split('\n')
    .map((line) => line.replace(/\s+--.*$/, '').trim())
    .filter(Boolean);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs the recipe as the superuser `admin` for the database `database` (instead of `ops`).
 * The roles are cluster-wide and shared by concurrent runs: a role that exists already is given the
 * recipe's attributes with ALTER ROLE (same options), so it ends up exactly as the recipe says.
 */
export async function applyReadmeRoleRecipe(adminUrl: string, database: string): Promise<void> {
  let client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (const statement of readmeRoleRecipe()) {
      const role = /^CREATE ROLE (\w+) (.*);$/.exec(statement);
      const createDatabase = /^CREATE DATABASE \w+ (.*);$/.exec(statement);
      if (role) await createOrAlterRole(client, role[1], role[2]);
      else if (createDatabase) await client.query(`CREATE DATABASE "${database}" ${createDatabase[1]}`);
      else if (/^\\c \w+$/.test(statement)) {
        await client.end();
        client = new Client({ connectionString: withDatabase(adminUrl, database) });
        await client.connect();
      } else await client.query(statement);
    }
  } finally {
    await client.end();
  }
}

async function createOrAlterRole(client: Client, role: string, options: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.query(`CREATE ROLE ${role} ${options}`);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== '42710' && code !== '23505') throw error; // exists already (or created concurrently)
    }
    try {
      await client.query(`ALTER ROLE ${role} ${options}`);
      return;
    } catch (error) {
      // Another run altering the same role at the same instant ("tuple concurrently updated").
      if (attempt >= 20 || (error as { code?: string }).code !== 'XX000') throw error;
      await sleep(50 + Math.random() * 100);
    }
  }
}
