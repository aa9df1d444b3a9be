import type { DependencyHealth } from '@app/platform';
import type { Passage } from './passage';

export type WebPassage = Extract<Passage, { kind: 'web' }>;

/** A web search engine. With none configured the chat's router never chooses WEB_SEARCH. */
export abstract class WebSearchProvider {
  abstract readonly configured: boolean;
  /** `tenantId`: the asking tenant (a provider that runs a tool needs it for the tenant's tool policy). */
  abstract search(
    query: string,
    topK: number,
    signal?: AbortSignal,
    tenantId?: string,
  ): Promise<WebPassage[]>;
  abstract health(): Promise<DependencyHealth>;
}

export class DisabledWebSearchProvider extends WebSearchProvider {
  readonly configured = false;

  search(): Promise<WebPassage[]> {
    return Promise.reject(new Error('No web search endpoint is configured (WEB_SEARCH_URL).'));
  }

  health(): Promise<DependencyHealth> {
    return Promise.resolve({ status: 'disabled', reason: 'WEB_SEARCH_URL is not set' });
  }
}

interface SearxngResult {
  url?: unknown;
  title?: unknown;
  content?: unknown;
  score?: unknown;
}

/** A SearxNG-compatible JSON endpoint: `GET <url>?q=<query>&format=json` -> `{ results: [{url,title,content}] }`. */
export class SearxngWebSearchProvider extends WebSearchProvider {
  readonly configured = true;

  constructor(
    private readonly endpoint: string,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  async search(query: string, topK: number, signal?: AbortSignal): Promise<WebPassage[]> {
    const url = new URL(this.endpoint);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (!response.ok) throw new Error(`web search answered HTTP ${response.status}`);
    const body = (await response.json()) as { results?: SearxngResult[] };
    if (!Array.isArray(body.results)) throw new Error('web search answered without a results array');
    return body.results
      .filter((r) => typeof r.url === 'string' && /^https?:\/\//.test(r.url))
      .slice(0, topK)
      .map((r, index) => ({
        kind: 'web' as const,
        url: r.url as string,
        title: typeof r.title === 'string' && r.title ? r.title : (r.url as string),
        score: typeof r.score === 'number' ? r.score : 1 / (index + 1),
        text: typeof r.content === 'string' ? r.content : '',
      }));
  }

  async health(): Promise<DependencyHealth> {
    return Promise.resolve({ status: 'ok', endpoint: new URL(this.endpoint).origin });
  }
}
