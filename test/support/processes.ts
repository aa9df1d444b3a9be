import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What `promise` settles to, or `fallback` if it has not settled within `ms`. The timer is cleared
 * either way: a bare `sleep` in a race would hold the jest worker open after the spec file ends.
 */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Compiles dist/ so tests can run the shipped entry points as separate processes, when its sources
 * changed since the last build. `npm test` builds once before jest starts, so this only checks when jest
 * was started some other way (builds of parallel spec files take turns and never delete dist/).
 */
export function buildDist(): void {
  if (process.env.OPS_TEST_DIST_BUILT === '1') return;
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--if-stale'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`build failed: ${result.stderr}`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await sleep(100);
  }
  throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
}

/** A throwaway redis-server on its own port, so a test can stop it without touching the shared one. */
export async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  try {
    await waitForPort(port, 5000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return child;
}

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Exit code, or the signal name when the process ended by a signal. */
  exited: Promise<number | string | null>;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/** Runs a compiled entry point with a controlled environment, capturing stdout and stderr. */
export function runNode(script: string, env: Record<string, string>, args: string[] = []): RunningProcess {
  const child = spawn(process.execPath, [path.join(ROOT, script), ...args], {
    cwd: ROOT,
    // No demo dataset unless a test asks for it: its background load would compete with the test.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DEMO_DATA: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  return {
    child,
    output: () => output,
    exited,
    waitForOutput: async (pattern, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const match = pattern.exec(output);
        if (match) return match[0];
        if (child.exitCode !== null) break;
        await sleep(100);
      }
      throw new Error(`output did not match ${String(pattern)}:\n${output}`);
    },
  };
}
