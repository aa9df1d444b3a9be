import { NestFactory } from '@nestjs/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AuthService } from '@app/platform';
import {
  applyEnv,
  buildDist,
  createTestDatabase,
  QUIET_TEST_ENV,
  ROOT,
  runNode,
  scopedForTests,
  sleep,
  testBackend,
  TestDatabase,
} from '@test/support';
import { AppModule } from '../../apps/api/src/app.module';

const MCP_MAIN = 'dist/apps/api/src/mcp/main.js';
const ECHO_SERVER = path.join(ROOT, 'test/support/mcp-echo-server.cjs');

describe(`MCP over stdio: npm run mcp (${testBackend()})`, () => {
  let database: TestDatabase;
  let operatorKey: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    const restore = applyEnv({ ...QUIET_TEST_ENV, ...database.env });
    const app = await NestFactory.createApplicationContext(AppModule.forRoot({ schedulers: false }), {
      logger: false,
    });
    try {
      const auth = scopedForTests(app.get(AuthService));
      await auth.createTenant('alpha', 'Alpha', undefined);
      operatorKey = (
        await auth.createKey('alpha', { name: 'mcp', role: 'operator', userId: 'ops-bot' }, undefined)
      ).secret;
    } finally {
      await app.close();
      restore();
    }
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...QUIET_TEST_ENV,
      ...database.env,
      MCP_SERVERS: JSON.stringify([{ name: 'echo', command: process.execPath, args: [ECHO_SERVER] }]),
    };
  });
  afterAll(() => database?.drop());

  it('lists and calls tools for the key’s tenant, and announces tool-set changes', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, MCP_MAIN)],
      env: { ...env, OPS_API_KEY: operatorKey },
      cwd: ROOT,
      stderr: 'pipe',
    });
    let stderr = '';
    (transport.stderr as Readable).on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).toMatchObject({ name: 'ops-copilot' });
      expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true } });

      // The external echo server connects in the background; its arrival is a list change.
      let names: string[] = [];
      for (let i = 0; i < 200 && !names.includes('echo__echo'); i++) {
        names = (await client.listTools()).tools.map((tool) => tool.name);
        if (!names.includes('echo__echo')) await sleep(100);
      }
      expect(names).toEqual(expect.arrayContaining(['echo__echo', 'echo__pid']));

      const echoed = await client.callTool({ name: 'echo__echo', arguments: { text: 'hello' } });
      expect(echoed.isError).toBe(false);
      expect(JSON.parse((echoed.content as Array<{ text: string }>)[0].text)).toMatchObject({
        echo: 'hello',
      });

      const pid = JSON.parse(
        ((await client.callTool({ name: 'echo__pid', arguments: {} })).content as Array<{ text: string }>)[0]
          .text,
      ) as { pid: number };
      const before = changes;
      process.kill(pid.pid, 'SIGKILL');
      for (let i = 0; i < 100 && changes === before; i++) await sleep(50);
      expect(changes).toBeGreaterThan(before);
      // Unavailable tools are not offered while their server is down.
      const during = (await client.listTools()).tools.map((tool) => tool.name);
      if (during.includes('echo__echo')) {
        // Already reconnected (backoff is about a second): calling works again.
        expect((await client.callTool({ name: 'echo__echo', arguments: { text: 'again' } })).isError).toBe(
          false,
        );
      } else {
        expect(during).not.toContain('echo__pid');
      }
    } catch (error) {
      throw new Error(`${(error as Error).message}\nserver stderr:\n${stderr}`);
    } finally {
      await client.close();
    }
  });

  it('refuses to start without a key or with an unknown key', async () => {
    const missing = runNode(MCP_MAIN, env);
    expect(await missing.exited).toBe(2);
    expect(missing.output()).toMatch(/OPS_API_KEY is required/);

    const wrong = runNode(MCP_MAIN, { ...env, OPS_API_KEY: 'ops_not_a_real_key_0000000000' });
    expect(await wrong.exited).toBe(1);
    expect(wrong.output()).toMatch(/OPS_API_KEY was refused: The API key is not valid/);
  });
});
