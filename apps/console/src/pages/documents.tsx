import { useEffect, useRef, useState } from 'preact/hooks';
import { api, canOperate, errorText, type Schemas, type Session } from '../api';

type Doc = Schemas['DocumentView'];
/** Retry helps only a failure that may pass on another try; a corrupt, encrypted or empty file fails the same way. */
const retryable = (d: Doc) => d.status === 'failed' && !d.deleted_at && d.error_details?.retryable !== false;
const STATUSES = ['', 'queued', 'processing', 'done', 'failed'] as const;

export function DocumentsPage({ session }: { session: Session }) {
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('');
  const [deleted, setDeleted] = useState(false);
  const [page, setPage] = useState<Schemas['DocumentPage'] | null>(null);
  const [error, setError] = useState('');
  const [uploads, setUploads] = useState<string[]>([]);
  const [chunks, setChunks] = useState<{ doc: Doc; items: Schemas['DocumentChunkView'][] } | null>(null);
  const operator = canOperate(session);
  const chunkView = useRef<HTMLElement>(null);
  // The chunk view opens at its top, in view (not somewhere below the document list).
  useEffect(() => {
    chunkView.current?.scrollIntoView({ block: 'start' });
  }, [chunks]);

  const load = async () => {
    const { data, error: failed } = await api.GET('/api/documents', {
      params: { query: { ...(status ? { status } : {}), include_deleted: deleted, limit: 100 } },
    });
    if (data) setPage(data);
    else setError(errorText(failed));
  };
  useEffect(() => {
    void load();
  }, [status, deleted]);
  // A citation links to #/documents/<id>: open that document's chunks.
  useEffect(() => {
    const id = /^#\/documents\/([\w-]{36})$/.exec(location.hash)?.[1];
    if (id)
      void api
        .GET('/api/documents/{id}', { params: { path: { id } } })
        .then(({ data }) => data && void showChunks(data));
  }, [location.hash]);
  // Live progress: poll while anything is queued or processing.
  useEffect(() => {
    if (!page?.items.some((d) => d.status === 'queued' || d.status === 'processing')) return;
    const timer = setTimeout(() => void load(), 700);
    return () => clearTimeout(timer);
  }, [page]);

  const upload = async (files: FileList | File[]) => {
    setError('');
    for (const file of Array.from(files)) {
      setUploads((u) => [...u, file.name]);
      const form = new FormData();
      form.append('file', file, file.name);
      const { error: failed } = await api.POST('/api/documents', {
        body: form as unknown as Schemas['DocumentUploadRequestDto'],
        bodySerializer: (body) => body as unknown as FormData,
      });
      if (failed) setError(`${file.name}: ${errorText(failed)}`);
      setUploads((u) => u.filter((name) => name !== file.name));
    }
    await load();
  };

  const act = async (doc: Doc, action: 'delete' | 'restore' | 'retry') => {
    if (action === 'delete' && !confirm(`Delete ${doc.filename}? It leaves search; Restore brings it back.`))
      return;
    setError('');
    const params = { params: { path: { id: doc.id } } };
    const { error: failed } =
      action === 'delete'
        ? await api.DELETE('/api/documents/{id}', params)
        : action === 'restore'
          ? await api.POST('/api/documents/{id}/restore', params)
          : await api.POST('/api/documents/{id}/retry', params);
    if (failed) setError(`${doc.filename}: ${errorText(failed)}`);
    await load();
  };

  // Every failed document of the tenant, with the bytes kept from its failure; says what it skipped.
  const retryAll = async () => {
    setError('');
    const { data, error: failed } = await api.POST('/api/documents/retry', {
      params: { query: { status: 'failed' } },
    });
    if (failed) setError(errorText(failed));
    else if (data.skipped.length)
      setError(
        `Retried ${data.retried.length}; skipped ${data.skipped.length}: ${data.skipped
          .map((s) => s.message)
          .join(' ')}`,
      );
    await load();
  };
  const anyFailed = page?.items.some(retryable) ?? false;

  const showChunks = async (doc: Doc) => {
    const { data, error: failed } = await api.GET('/api/documents/{id}/chunks', {
      params: { path: { id: doc.id }, query: { limit: 50 } },
    });
    if (data) setChunks({ doc, items: data.items });
    else setError(errorText(failed));
  };

  return (
    <>
      {chunks && (
        <section ref={chunkView} data-testid="chunk-view">
          <h2>Chunks of {chunks.doc.filename}</h2>
          <button type="button" class="secondary" onClick={() => setChunks(null)}>
            Close
          </button>
          <ol>
            {chunks.items.map((c) => (
              <li key={c.chunk_id}>
                <span class="muted">
                  {c.chunk_type}
                  {c.page_number != null && ` · page ${c.page_number}`}
                </span>
                <pre class="wrap">{c.text}</pre>
              </li>
            ))}
          </ol>
        </section>
      )}
      {operator && (
        <section
          onDragOver={(e) => e.preventDefault()}
          onDrop={(e) => {
            e.preventDefault();
            if (e.dataTransfer?.files.length) void upload(e.dataTransfer.files);
          }}
        >
          <h2>Upload</h2>
          <label for="files">Files to upload (or drop them here)</label>
          <input
            id="files"
            type="file"
            multiple
            onChange={(e) => e.currentTarget.files && void upload(e.currentTarget.files)}
          />
          {uploads.length > 0 && <p aria-live="polite">Uploading {uploads.join(', ')}…</p>}
        </section>
      )}
      <section>
        <h2>Documents</h2>
        <div class="row">
          <div>
            <label for="status">Status</label>
            <select
              id="status"
              value={status}
              onChange={(e) => setStatus(e.currentTarget.value as typeof status)}
            >
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s || 'any'}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label>
              <input
                type="checkbox"
                checked={deleted}
                onChange={(e) => setDeleted(e.currentTarget.checked)}
              />{' '}
              Include deleted
            </label>
          </div>
          <div>
            <button type="button" class="secondary" onClick={() => void load()}>
              Refresh
            </button>
          </div>
          {operator && anyFailed && (
            <div>
              <button type="button" onClick={() => void retryAll()}>
                Retry all failed
              </button>
            </div>
          )}
        </div>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>File</th>
                <th>Status</th>
                <th>Progress</th>
                <th>Chunks</th>
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
              {page?.items.map((d) => (
                <tr key={d.id} data-testid={`doc-${d.filename}`}>
                  <td>
                    {d.filename}
                    <div class="muted">
                      {d.format} · {d.size} bytes{d.deleted_at ? ' · deleted' : ''}
                    </div>
                  </td>
                  <td data-testid="doc-status">
                    {d.status}
                    {d.error_details && (
                      <div class="error">
                        {d.error_details.code}: {d.error_details.message}
                        <div class="muted">
                          {d.error_details.retryable === false
                            ? 'not retryable: fix the file and upload it again · '
                            : ''}
                          {d.error_details.attempts} attempts
                          {d.retry_count > 0 ? ` · retried ${d.retry_count}×` : ''}
                        </div>
                      </div>
                    )}
                  </td>
                  <td>
                    <progress max={100} value={d.processing_progress} aria-label={`${d.filename} progress`} />{' '}
                    {d.processing_progress}%
                  </td>
                  <td>{d.total_chunks}</td>
                  <td>
                    <button type="button" class="secondary" onClick={() => void showChunks(d)}>
                      Chunks
                    </button>
                    {operator && !d.deleted_at && (
                      <button type="button" class="danger" onClick={() => void act(d, 'delete')}>
                        Delete
                      </button>
                    )}
                    {operator && retryable(d) && (
                      <button type="button" onClick={() => void act(d, 'retry')}>
                        Retry
                      </button>
                    )}
                    {operator && d.deleted_at && (
                      <button type="button" onClick={() => void act(d, 'restore')}>
                        Restore
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p class="muted">{page ? `${page.total} documents` : 'Loading…'}</p>
      </section>
    </>
  );
}
