import { useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../api';

type Mode = Schemas['DocumentSearchRequestDto']['search_type'];

/**
 * The snippet as the server highlighted it (`<mark>` around matches, from PostgreSQL's ts_headline), rendered
 * as text nodes and <mark> elements only: nothing from the server is parsed as HTML. A snippet without
 * marks (vector-only hits) gets the query's words highlighted here.
 */
function Highlighted({ text, query }: { text: string; query: string }) {
  if (/<mark>/i.test(text)) {
    const parts = text.split(/<\/?mark>/i);
    return <>{parts.map((part, i) => (i % 2 ? <mark key={i}>{part}</mark> : part))}</>;
  }
  const words = query
    .split(/\s+/)
    .filter((w) => w.length > 1)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (!words.length) return <>{text}</>;
  const parts = text.split(new RegExp(`(${words.join('|')})`, 'gi'));
  return <>{parts.map((part, i) => (i % 2 ? <mark key={i}>{part}</mark> : part))}</>;
}

const branch = (b: Schemas['BranchHit'] | null) => (b ? `#${b.rank} · ${b.score.toFixed(3)}` : '—');

export function SearchPage() {
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState<Mode>('hybrid');
  const [topK, setTopK] = useState(10);
  const [contentType, setContentType] = useState('');
  const [chunkType, setChunkType] = useState('');
  const [response, setResponse] = useState<Schemas['DocumentSearchResponse'] | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const search = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    const filters: Schemas['DocumentSearchFiltersDto'] = {};
    if (contentType) filters.content_types = [contentType];
    if (chunkType) filters.chunk_types = [chunkType as 'text'];
    const { data, error: failed } = await api.POST('/api/documents/search', {
      body: { query, search_type: mode, top_k: topK, ...(Object.keys(filters).length ? { filters } : {}) },
    });
    setBusy(false);
    if (data) setResponse(data);
    else setError(errorText(failed));
  };

  return (
    <section>
      <h2>Search</h2>
      <form onSubmit={(e) => void search(e)}>
        <label for="q">Query</label>
        <input id="q" value={query} onInput={(e) => setQuery(e.currentTarget.value)} required />
        <fieldset>
          <legend>Mode</legend>
          {(['text', 'vector', 'hybrid'] as const).map((m) => (
            <label key={m}>
              <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} />{' '}
              {m}
            </label>
          ))}
        </fieldset>
        <div class="row">
          <div>
            <label for="topk">top_k</label>
            <input
              id="topk"
              type="number"
              min={1}
              max={100}
              value={topK}
              onInput={(e) => setTopK(Number(e.currentTarget.value))}
            />
          </div>
          <div>
            <label for="ctype">Content type filter</label>
            <input
              id="ctype"
              placeholder="text/markdown"
              value={contentType}
              onInput={(e) => setContentType(e.currentTarget.value)}
            />
          </div>
          <div>
            <label for="chtype">Chunk type filter</label>
            <select id="chtype" value={chunkType} onChange={(e) => setChunkType(e.currentTarget.value)}>
              <option value="">any</option>
              {['text', 'table', 'image', 'mixed'].map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </div>
        </div>
        <button type="submit" disabled={busy}>
          Search
        </button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {response && (
        <div aria-live="polite">
          <p data-testid="search-summary">
            {response.results_count} results · {response.search_type} ·{' '}
            {response.cached ? 'cache hit' : 'cache miss'} · {response.execution_time_ms} ms
            {response.embedding_model ? ` · ${response.embedding_model}` : ''}
          </p>
          {response.warnings.map((w) => (
            <p key={w} class="muted">
              {w}
            </p>
          ))}
          <ol>
            {response.results.map((r) => (
              <li key={r.chunk_id} class="result">
                <strong>{r.document_name}</strong>{' '}
                <span class="muted">
                  chunk {r.chunk_index} · {r.chunk_type}
                  {r.page_number != null && ` · page ${r.page_number}`}
                  {r.slide_number != null && ` · slide ${r.slide_number}`}
                </span>
                <p>
                  <Highlighted text={r.snippet} query={query} />
                </p>
                <div class="scores">
                  <span>fused {r.relevance_score.toFixed(4)}</span>
                  <span>text {branch(r.branches.text)}</span>
                  <span>vector {branch(r.branches.vector)}</span>
                </div>
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}
