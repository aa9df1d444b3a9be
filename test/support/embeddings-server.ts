import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EmbeddingsServerOptions {
  dimensions?: number;
  /** Delay before answering each request. */
  delayMs?: number;
}

export interface EmbeddingsServer {
  url: string;
  /** Every request's `input` array, in arrival order. */
  requests: string[][];
  /** Total texts embedded. */
  embeddedTexts(): number;
  /** The next `count` requests answer `status` (e.g. 503) instead of vectors. */
  failNext(count: number, status: number, headers?: Record<string, string>): void;
  setDelay(ms: number): void;
  /** Requests with an input containing `marker` answer `status` (a poison text), until cleared with null. */
  failWhenInputContains(marker: string | null, status?: number): void;
  close(): Promise<void>;
}

/** Deterministic word-hashing vectors: texts sharing words point in similar directions. */
export function testEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const digest = createHash('sha256').update(word).digest();
    vector[digest.readUInt32BE(0) % dimensions] += digest[4] & 1 ? 1 : -1;
  }
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0)) || 1;
  return vector.map((v) => v / norm);
}

/** A real OpenAI-compatible `/v1/embeddings` HTTP server on a random local port. */
export async function startEmbeddingsServer(
  options: EmbeddingsServerOptions = {},
): Promise<EmbeddingsServer> {
  const dimensions = options.dimensions ?? 64;
  let delayMs = options.delayMs ?? 0;
  const failures: Array<{ status: number; headers: Record<string, string> }> = [];
  const requests: string[][] = [];
  let poison: { marker: string; status: number } | null = null;
  // Delayed answers still waiting; close() drops them, so no timer outlives the server.
  const delayed = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const answer = () => {
        if (req.method !== 'POST' || !req.url?.endsWith('/v1/embeddings')) {
          res.writeHead(404).end();
          return;
        }
        const parsed = JSON.parse(raw) as { input: string[] | string; model: string };
        const texts = Array.isArray(parsed.input) ? parsed.input : [parsed.input];
        const failure =
          poison && texts.some((t) => t.includes(poison!.marker))
            ? { status: poison.status, headers: {} }
            : failures.shift();
        if (failure) {
          res.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
          res.end(JSON.stringify({ error: { message: 'injected failure' } }));
          return;
        }
        const body = JSON.parse(raw) as { input: string[] | string; model: string };
        const input = Array.isArray(body.input) ? body.input : [body.input];
        requests.push(input);
        // Answer out of order: clients must use `index`.
        const data = input.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: testEmbedding(text, dimensions),
        }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', model: body.model, data: data.reverse() }));
      };
      if (delayMs > 0) {
        const timer = setTimeout(() => {
          delayed.delete(timer);
          answer();
        }, delayMs);
        delayed.add(timer);
      } else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    embeddedTexts: () => requests.reduce((sum, input) => sum + input.length, 0),
    failNext: (count, status, headers = {}) => {
      for (let i = 0; i < count; i++) failures.push({ status, headers });
    },
    setDelay: (ms) => {
      delayMs = ms;
    },
    failWhenInputContains: (marker, status = 500) => {
      poison = marker === null ? null : { marker, status };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of delayed) clearTimeout(timer);
        delayed.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
