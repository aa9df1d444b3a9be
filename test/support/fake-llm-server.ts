import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the fake model. */
export interface FakeLlmReply {
  /** Assistant message text (e.g. a JSON plan). */
  content?: string | null;
  toolCalls?: Array<{ name: string; arguments: string; id?: string }>;
  /** HTTP status; non-2xx answers with an OpenAI-style error body. */
  status?: number;
  /** Sent verbatim instead of a chat completion (malformed bodies). */
  rawBody?: string;
  /** Wait this long before answering (simulates a slow model or a timeout). */
  delayMs?: number;
  model?: string;
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** A streamed answer (`stream: true`) sends its text in pieces of this many characters (default 4). */
  chunkChars?: number;
}

export interface RecordedLlmRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  receivedAt: number;
}

type ReplySource = FakeLlmReply | ((request: RecordedLlmRequest) => FakeLlmReply | Promise<FakeLlmReply>);

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 for tests: speaks `/v1/chat/completions`
 * (text, `response_format`, tool calls) and `/v1/models`, answers from a queue of scripted replies
 * (or a default), records every request, and can delay, fail with a status or send broken bodies.
 * A request with `stream: true` is answered as the OpenAI API streams: `chat.completion.chunk` events
 * (text in pieces, tool calls as deltas, usage last) and `data: [DONE]`.
 */
export class FakeLlmServer {
  readonly requests: RecordedLlmRequest[] = [];
  models = ['fake-model', 'fake-model-large'];
  private readonly queue: ReplySource[] = [];
  private fallbackReply: ReplySource | null = null;
  private readonly server: http.Server;
  private readonly sockets = new Set<import('node:net').Socket>();
  private port = 0;

  private constructor() {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(): Promise<FakeLlmServer> {
    const fake = new FakeLlmServer();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.port = (fake.server.address() as AddressInfo).port;
    return fake;
  }

  /** Base URL for LLM_BASE_URL / the OpenAI client's baseURL. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Chat-completion requests only. */
  get chatRequests(): RecordedLlmRequest[] {
    return this.requests.filter((r) => r.path.endsWith('/chat/completions'));
  }

  enqueue(...replies: ReplySource[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Answer used when the queue is empty (default: a 500 saying nothing was scripted). */
  setDefault(reply: ReplySource | null): this {
    this.fallbackReply = reply;
    return this;
  }

  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
    this.fallbackReply = null;
  }

  get pending(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  static json(value: unknown): FakeLlmReply {
    return { content: JSON.stringify(value) };
  }

  static text(content: string): FakeLlmReply {
    return { content };
  }

  static toolCall(name: string, args: unknown): FakeLlmReply {
    return {
      content: null,
      toolCalls: [{ name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }],
    };
  }

  static error(status: number): FakeLlmReply {
    return { status };
  }

  static delayed(delayMs: number, reply: FakeLlmReply = { content: '{}' }): FakeLlmReply {
    return { ...reply, delayMs };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // keep the text
    }
    const path = (req.url ?? '/').split('?')[0];
    const recorded: RecordedLlmRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      receivedAt: Date.now(),
    };
    this.requests.push(recorded);

    if (req.method === 'GET' && path.endsWith('/models')) {
      return this.send(res, 200, {
        object: 'list',
        data: this.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'test' })),
      });
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      return this.send(res, 404, {
        error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' },
      });
    }
    const source = this.queue.shift() ?? this.fallbackReply;
    const reply: FakeLlmReply = source
      ? typeof source === 'function'
        ? await source(recorded)
        : source
      : { status: 500, content: 'fake LLM: no reply scripted' };
    if (reply.delayMs) {
      const aborted = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), reply.delayMs);
        res.on('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (aborted || res.destroyed) return;
    }
    if (reply.rawBody !== undefined) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      res.end(reply.rawBody);
      return;
    }
    if (reply.status && reply.status >= 400) {
      return this.send(res, reply.status, {
        error: { message: reply.content ?? `simulated ${reply.status}`, type: 'server_error', code: null },
      });
    }
    const request = (body ?? {}) as { model?: string; stream?: boolean };
    if (request.stream) return this.stream(res, reply, request.model);
    const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
      id: call.id ?? `call_${this.requests.length}_${index}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    this.send(res, 200, {
      id: `chatcmpl-${this.requests.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: reply.model ?? request.model ?? 'fake-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.content ?? null,
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
        },
      ],
      usage: {
        prompt_tokens: reply.usage?.prompt_tokens ?? 100,
        completion_tokens: reply.usage?.completion_tokens ?? 20,
        total_tokens: (reply.usage?.prompt_tokens ?? 100) + (reply.usage?.completion_tokens ?? 20),
      },
    });
  }

  private stream(res: http.ServerResponse, reply: FakeLlmReply, requestModel: string | undefined): void {
    const id = `chatcmpl-${this.requests.length}`;
    const model = reply.model ?? requestModel ?? 'fake-model';
    const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: unknown) =>
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
        ...(usage ? { usage } : {}),
      })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: '' }));
    const text = reply.content ?? '';
    const size = reply.chunkChars ?? 4;
    for (let i = 0; i < text.length; i += size) res.write(chunk({ content: text.slice(i, i + size) }));
    (reply.toolCalls ?? []).forEach((call, index) => {
      res.write(
        chunk({
          tool_calls: [
            {
              index,
              id: call.id ?? `call_${this.requests.length}_${index}`,
              type: 'function',
              function: { name: call.name, arguments: '' },
            },
          ],
        }),
      );
      res.write(chunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] }));
    });
    res.write(chunk({}, reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop')));
    const prompt = reply.usage?.prompt_tokens ?? 100;
    const completion = reply.usage?.completion_tokens ?? 20;
    res.write(
      chunk({}, null, {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
      }),
    );
    res.end('data: [DONE]\n\n');
  }

  private send(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}
