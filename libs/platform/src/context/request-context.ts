import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';

export interface RequestContextState {
  requestId: string;
  traceId: string;
  spanId?: string;
  principal?: Principal;
  /** The agent run, chat turn or stage run the request drives, once it exists: every log line names it. */
  runId?: string;
}

const storage = new AsyncLocalStorage<RequestContextState>();

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}$/;
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Per-request ids and caller, carried through async calls so every log line can name them. */
export const RequestContext = {
  run<T>(state: RequestContextState, fn: () => T): T {
    return storage.run(state, fn);
  },

  current(): RequestContextState | undefined {
    return storage.getStore();
  },

  requestId(): string | undefined {
    return storage.getStore()?.requestId;
  },

  setPrincipal(principal: Principal): void {
    const state = storage.getStore();
    if (state) state.principal = principal;
  },

  /** Names the run the current request drives in every later log line of it. */
  setRunId(runId: string): void {
    const state = storage.getStore();
    if (state) state.runId = runId;
  },

  /** Builds the state from incoming headers: a sane `X-Request-Id` is kept, `traceparent` is honoured. */
  fromHeaders(requestIdHeader: unknown, traceparentHeader: unknown): RequestContextState {
    const requestId =
      typeof requestIdHeader === 'string' && REQUEST_ID.test(requestIdHeader)
        ? requestIdHeader
        : randomUUID();
    const match = typeof traceparentHeader === 'string' ? TRACEPARENT.exec(traceparentHeader.trim()) : null;
    const traceId = match && !/^0+$/.test(match[1]) ? match[1] : randomBytes(16).toString('hex');
    return { requestId, traceId, spanId: match?.[2] };
  },
};
