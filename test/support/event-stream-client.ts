/** One server-sent event as a test client read it. */
export interface ReceivedEvent {
  event: string;
  data: any;
}

export interface EventStreamCall {
  status: number;
  headers: Headers;
  /** The events in order; resolves once the server ended the stream (or the client aborted it). */
  done: Promise<ReceivedEvent[]>;
  /** Resolves with the first event `match` accepts (rejects if the stream ends first). */
  next(match: (event: ReceivedEvent) => boolean): Promise<ReceivedEvent>;
  /** Disconnects, as a client that went away. */
  abort(): void;
  /** The JSON body of a response that was not a stream (an error before the first event). */
  json?: any;
}

/**
 * POSTs with `Accept: text/event-stream` and reads the answer as it arrives (fetch's body stream), so
 * a test sees each event when the server sends it, and can disconnect mid-run.
 */
export async function postEventStream(
  url: string,
  route: string,
  options: { key: string; body: unknown; headers?: Record<string, string> },
): Promise<EventStreamCall> {
  const controller = new AbortController();
  const response = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${options.key}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...options.headers,
    },
    body: JSON.stringify(options.body),
    signal: controller.signal,
  });
  const events: ReceivedEvent[] = [];
  const waiters: Array<{
    match: (e: ReceivedEvent) => boolean;
    resolve: (e: ReceivedEvent) => void;
    reject: (e: Error) => void;
  }> = [];
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const json: unknown = await response.json();
    return {
      status: response.status,
      headers: response.headers,
      done: Promise.resolve([]),
      next: () => Promise.reject(new Error('not an event stream')),
      abort: () => controller.abort(),
      json,
    };
  }
  let ended = false;
  const done = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          const name = lines.find((l) => l.startsWith('event: '))?.slice(7);
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
          if (!name || data === undefined) continue;
          const event = { event: name, data: JSON.parse(data) };
          events.push(event);
          for (const waiter of [...waiters])
            if (waiter.match(event)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve(event);
            }
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
    ended = true;
    for (const waiter of waiters.splice(0)) waiter.reject(new Error('the stream ended first'));
    return events;
  })();
  return {
    status: response.status,
    headers: response.headers,
    done,
    next: (match) => {
      const seen = events.find(match);
      if (seen) return Promise.resolve(seen);
      if (ended) return Promise.reject(new Error('the stream ended first'));
      return new Promise((resolve, reject) => waiters.push({ match, resolve, reject }));
    },
    abort: () => controller.abort(),
  };
}
