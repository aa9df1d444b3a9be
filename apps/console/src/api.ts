import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './api/schema';

export type Schemas = components['schemas'];
export type Session = Schemas['SessionView'];

const KEY_STORAGE = 'ops-console-key';

/** The API key lives in session storage only (never in a URL); it goes out as a bearer header. */
export const keyStore = {
  get: (): string | null => sessionStorage.getItem(KEY_STORAGE),
  set: (key: string) => sessionStorage.setItem(KEY_STORAGE, key),
  clear: () => sessionStorage.removeItem(KEY_STORAGE),
};

let onUnauthenticated: () => void = () => undefined;
export function whenKeyRefused(handler: () => void): void {
  onUnauthenticated = handler;
}

const auth: Middleware = {
  onRequest({ request }) {
    const key = keyStore.get();
    if (key) request.headers.set('Authorization', `Bearer ${key}`);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) onUnauthenticated();
    return response;
  },
};

/** The typed client generated from openapi.json: every request and response shape comes from the contract. */
export const api = createClient<paths>({ baseUrl: location.origin });
api.use(auth);

/** A readable message from an ErrorResponseDto (or anything else that came back). */
export function errorText(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) {
    const e = error as Schemas['ErrorResponseDto'];
    return `${e.error}: ${e.message}`;
  }
  return String(error);
}

const RANK: Record<string, number> = { reader: 0, service: 0, operator: 1, admin: 2 };
export const canOperate = (s: Session) => RANK[s.role] >= 1;
export const isAdmin = (s: Session) => s.role === 'admin';
/** The agent endpoint (`/internal/v1/llm/execute`) takes service and admin keys, as the API does. */
export const runsAgent = (s: Session) => s.role === 'service' || s.role === 'admin';
