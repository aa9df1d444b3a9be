import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, isAdmin, type Schemas, type Session } from '../api';

type Asset = Schemas['AssetView'];

/** Every asset type of the API (AssetView.asset_type), `stage` included; '' is any. */
const ASSET_TYPES: ('' | Asset['asset_type'])[] = [
  '',
  'tool',
  'stage',
  'query',
  'prompt',
  'mapping',
  'policy',
  'source',
  'catalog',
  'resolver',
  'screen',
];

/**
 * What the list says of an asset: `published` while a version is served, with pending edits noted
 * (the stored status stays `draft` until the first publish and after an edit of a served asset).
 */
export function assetState(a: Asset): string {
  if (a.status === 'archived') return 'archived';
  if (a.published_version != null)
    return a.has_unpublished_changes ? 'published · unpublished changes' : 'published';
  return 'draft';
}
type Version = Schemas['AssetVersionView'];

const NEW_TOOL = {
  asset_type: 'tool',
  name: 'cpu_top',
  description: 'Servers of an environment',
  tags: ['metrics'],
  tool_type: 'sql',
  tool_config: {
    query: 'SELECT id, name FROM configuration_items WHERE environment = :environment ORDER BY name',
    row_limit: 50,
  },
  tool_input_schema: {
    type: 'object',
    properties: { environment: { type: 'string', enum: ['prod', 'staging', 'dev'] } },
    required: ['environment'],
  },
  tool_output_schema: {
    type: 'object',
    properties: { rows: { type: 'array' }, row_count: { type: 'integer' } },
  },
};

const EDITABLE = [
  'description',
  'tags',
  'tool_type',
  'tool_config',
  'tool_input_schema',
  'tool_output_schema',
  'sample_input',
  'has_side_effects',
  'source_ref',
  'scope',
  'engine',
  'template',
  'input_schema',
  'output_contract',
  'query_sql',
  'query_cypher',
  'query_http',
  'query_params',
  'query_metadata',
  'content',
] as const;

/** Checks the editor's JSON in the page: parses, is an object, and its schema fields are JSON Schema objects. */
function checkToolJson(text: string): { value?: Record<string, unknown>; problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problems: [`Not JSON: ${(error as Error).message}`] };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { problems: ['The asset must be a JSON object'] };
  const asset = value as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof asset.name !== 'string' || !asset.name) problems.push('name: a non-empty string is required');
  if (asset.asset_type === 'tool') {
    if (!['http', 'sql'].includes(String(asset.tool_type))) problems.push('tool_type: http or sql');
    for (const field of ['tool_input_schema', 'tool_output_schema']) {
      const schema = asset[field] as Record<string, unknown> | undefined;
      if (
        schema !== undefined &&
        (typeof schema !== 'object' || schema === null || typeof schema.type !== 'string')
      )
        problems.push(`${field}: a JSON Schema object with a type`);
    }
    const input = asset.tool_input_schema as Record<string, unknown> | undefined;
    if (input && input.type !== 'object') problems.push('tool_input_schema: type must be "object"');
  }
  return { value: asset, problems };
}

function ContractReport({ version }: { version: Version }) {
  const check = version.contract_check;
  return (
    <div data-testid="contract-report">
      <h3>Contract check of version {version.version}</h3>
      {check ? (
        <ul>
          <li>
            Compared with version {check.compared_with_version ?? 'none'}
            {check.forced ? ' · forced' : ''}
          </li>
          {check.breaking_changes.map((b) => (
            <li key={b.path} class="error">
              breaking: {b.kind} at {b.path}: {b.message}
            </li>
          ))}
          {check.issues.map((i) => (
            <li key={i.field}>
              issue: {i.field}: {i.message}
            </li>
          ))}
          {check.warnings.map((w) => (
            <li key={w}>warning: {w}</li>
          ))}
          {!check.breaking_changes.length && !check.issues.length && <li class="ok">No breaking changes</li>}
        </ul>
      ) : (
        <p class="muted">Not a tool: no contract check.</p>
      )}
      {version.dry_run && (
        <p>
          Dry run: {version.dry_run.status}
          {version.dry_run.error ? ` (${version.dry_run.error})` : ''}
        </p>
      )}
    </div>
  );
}

function AssetDetail({
  asset,
  admin,
  onChanged,
}: {
  asset: Asset;
  admin: boolean;
  onChanged: (a?: Asset) => void;
}) {
  const editable = Object.fromEntries(
    EDITABLE.filter((f) => (asset as Record<string, unknown>)[f] != null).map((f) => [
      f,
      (asset as Record<string, unknown>)[f],
    ]),
  );
  const [text, setText] = useState(JSON.stringify(editable, null, 2));
  const [message, setMessage] = useState('');
  const [error, setError] = useState('');
  const [blocked, setBlocked] = useState<unknown>(null);
  const [published, setPublished] = useState<Version | null>(null);
  const [versions, setVersions] = useState<Version[]>([]);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [diff, setDiff] = useState<Schemas['AssetDiffView'] | null>(null);
  const edited = safeParse(text);
  const check = edited
    ? checkToolJson(JSON.stringify({ asset_type: asset.asset_type, name: asset.name, ...edited }))
    : checkToolJson(text);
  const path = { params: { path: { id: asset.id } } };
  const top = useRef<HTMLElement>(null);
  // Opening an asset shows its detail at the top of the view.
  useEffect(() => {
    top.current?.scrollIntoView({ block: 'start' });
  }, [asset.id]);

  const history = async () => {
    const { data } = await api.GET('/api/assets/{id}/versions', path);
    if (data) setVersions(data.versions);
  };
  useEffect(() => {
    void history();
  }, [asset.id, asset.version]);

  const save = async () => {
    setError('');
    const parsed = safeParse(text);
    if (!parsed || check.problems.length) return setError(check.problems.join('; ') || 'Not JSON');
    const { data, error: failed } = await api.PATCH('/api/assets/{id}', { ...path, body: parsed });
    if (data) {
      setMessage('Saved');
      setPublished(null);
      onChanged(data);
    } else setError(errorText(failed));
  };
  const publish = async (force: boolean) => {
    setError('');
    setBlocked(null);
    const {
      data,
      error: failed,
      response,
    } = await api.POST('/api/assets/{id}/publish', { ...path, body: { force } });
    if (data) {
      setPublished(data);
      setMessage(`Published version ${data.version}`);
      onChanged();
    } else if (response.status === 409 || response.status === 400) {
      setError(errorText(failed));
      setBlocked(failed.details ?? {});
    } else setError(errorText(failed));
  };
  const rollback = async (version: number) => {
    // The report shown was of the version rolled away from: it no longer describes what is served.
    setPublished(null);
    setBlocked(null);
    const { data, error: failed } = await api.POST('/api/assets/{id}/rollback', {
      ...path,
      body: { version, force: true },
    });
    if (data) {
      setMessage(`Rolled back: version ${data.version} restores version ${version}`);
      onChanged();
    } else setError(errorText(failed));
  };
  const archive = async () => {
    if (!confirm(`Archive ${asset.asset_type} ${asset.name}? It stops being served.`)) return;
    const { data, error: failed } = await api.POST('/api/assets/{id}/archive', path);
    if (data) onChanged(data);
    else setError(errorText(failed));
  };
  const compare = async (event: Event) => {
    event.preventDefault();
    const { data, error: failed } = await api.GET('/api/assets/{id}/diff', {
      params: { path: { id: asset.id }, query: { from, to } },
    });
    if (data) setDiff(data);
    else setError(errorText(failed));
  };

  return (
    <section ref={top} data-testid="asset-detail">
      <h2>
        {asset.asset_type} {asset.name}
      </h2>
      <p class="muted" data-testid="asset-state">
        {assetState(asset)} · version {asset.version} · serving {asset.published_version ?? 'none'}
      </p>
      {admin && (
        <>
          <label for="asset-json">Definition (JSON)</label>
          <textarea
            id="asset-json"
            rows={16}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            aria-describedby="asset-json-check"
          />
          <p id="asset-json-check" class={check.problems.length ? 'error' : 'ok'}>
            {check.problems.length ? check.problems.join('; ') : 'Valid JSON for this asset type'}
          </p>
          <button type="button" onClick={() => void save()} disabled={check.problems.length > 0}>
            Save draft
          </button>
          <button type="button" onClick={() => void publish(false)}>
            Publish
          </button>
          <button type="button" class="danger" onClick={() => void archive()}>
            Archive
          </button>
        </>
      )}
      {message && (
        <p class="ok" role="status">
          {message}
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {blocked != null && admin && (
        <div data-testid="publish-blocked">
          <h3>Publish refused</h3>
          <ul>
            {((blocked as { breaking_changes?: Schemas['BreakingChange'][] }).breaking_changes ?? []).map(
              (b) => (
                <li key={b.path} class="error">
                  breaking: {b.kind} at {b.path}: {b.message}
                </li>
              ),
            )}
          </ul>
          <details>
            <summary>Full report</summary>
            <pre>{JSON.stringify(blocked, null, 2)}</pre>
          </details>
          <button
            type="button"
            class="danger"
            onClick={() => {
              if (confirm('Publish despite breaking changes? Callers of this tool may fail.'))
                void publish(true);
            }}
          >
            Force publish
          </button>
        </div>
      )}
      {published && <ContractReport version={published} />}
      <h3>History</h3>
      <ol reversed data-testid="history">
        {versions.map((v) => (
          <li key={v.version}>
            version {v.version} · {v.published_at} · {v.published_by ?? ''}
            {v.rollback_from_version ? ` · rollback of ${v.rollback_from_version}` : ''}
            {v.note ? ` · ${v.note}` : ''}
            {v.contract_check?.forced ? ' · forced' : ''}
            {admin && (
              <button type="button" class="secondary" onClick={() => void rollback(v.version)}>
                Roll back to {v.version}
              </button>
            )}
          </li>
        ))}
      </ol>
      <form onSubmit={(e) => void compare(e)} class="row">
        <div>
          <label for="diff-from">Diff from</label>
          <input
            id="diff-from"
            value={from}
            placeholder="1"
            onInput={(e) => setFrom(e.currentTarget.value)}
            required
          />
        </div>
        <div>
          <label for="diff-to">to</label>
          <input
            id="diff-to"
            value={to}
            placeholder="draft"
            onInput={(e) => setTo(e.currentTarget.value)}
            required
          />
        </div>
        <div>
          <button type="submit">Compare</button>
        </div>
      </form>
      {diff && (
        <div data-testid="diff">
          <p>
            {diff.changes.length} changes from {diff.from} to {diff.to}
          </p>
          {diff.changes.map((c) => (
            <div key={c.path}>
              <strong>
                {c.change} {c.path}
              </strong>
              <div class="diff">
                <pre aria-label={`${c.path} in ${diff.from}`}>{JSON.stringify(c.from, null, 2) ?? '—'}</pre>
                <pre aria-label={`${c.path} in ${diff.to}`}>{JSON.stringify(c.to, null, 2) ?? '—'}</pre>
              </div>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

function safeParse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function AssetsPage({ session }: { session: Session }) {
  const admin = isAdmin(session);
  const [type, setType] = useState('');
  const [status, setStatus] = useState('');
  const [page, setPage] = useState<Schemas['Page_AssetView'] | null>(null);
  const [selected, setSelected] = useState<Asset | null>(null);
  const [draft, setDraft] = useState(JSON.stringify(NEW_TOOL, null, 2));
  const [error, setError] = useState('');
  const draftCheck = checkToolJson(draft);

  const load = async () => {
    const { data, error: failed } = await api.GET('/api/assets', {
      params: {
        query: {
          ...(type ? { type: type as Asset['asset_type'] } : {}),
          ...(status ? { status: status as 'draft' } : {}),
          limit: 100,
        },
      },
    });
    if (data) setPage(data);
    else setError(errorText(failed));
  };
  useEffect(() => {
    void load();
  }, [type, status]);

  const refresh = async (asset?: Asset) => {
    await load();
    if (asset) setSelected(asset);
    else if (selected) {
      const { data } = await api.GET('/api/assets/{id}', { params: { path: { id: selected.id } } });
      if (data) setSelected(data);
    }
  };

  const create = async (event: Event) => {
    event.preventDefault();
    setError('');
    if (!draftCheck.value || draftCheck.problems.length) return setError(draftCheck.problems.join('; '));
    const { data, error: failed } = await api.POST('/api/assets', {
      body: draftCheck.value as Schemas['CreateAssetRequestDto'],
    });
    if (data) {
      setSelected(data);
      await load();
    } else setError(errorText(failed));
  };

  return (
    <>
      <section>
        <h2>Assets</h2>
        <div class="row">
          <div>
            <label for="asset-type">Type</label>
            <select id="asset-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
              {ASSET_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t || 'any'}
                </option>
              ))}
            </select>
          </div>
          {admin && (
            <div>
              <label for="asset-status">Status</label>
              <select id="asset-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
                {['', 'draft', 'published', 'archived'].map((t) => (
                  <option key={t} value={t}>
                    {t || 'any'}
                  </option>
                ))}
              </select>
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
                <th>Name</th>
                <th>Type</th>
                <th>Status</th>
                <th>Version</th>
              </tr>
            </thead>
            <tbody>
              {page?.items.map((a) => (
                <tr key={a.id}>
                  <td>
                    <button type="button" class="secondary" onClick={() => setSelected(a)}>
                      {a.name}
                    </button>
                  </td>
                  <td>{a.asset_type}</td>
                  <td data-testid="asset-list-state">{assetState(a)}</td>
                  <td>{a.published_version ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {selected && (
        <AssetDetail key={selected.id} asset={selected} admin={admin} onChanged={(a) => void refresh(a)} />
      )}
      {admin && selected && (
        <p>
          <button type="button" class="secondary" onClick={() => setSelected(null)}>
            New asset
          </button>
        </p>
      )}
      {admin && !selected && (
        <section>
          <h2>New asset</h2>
          <form onSubmit={(e) => void create(e)}>
            <label for="new-asset">New asset (JSON)</label>
            <textarea
              id="new-asset"
              rows={12}
              value={draft}
              onInput={(e) => setDraft(e.currentTarget.value)}
              aria-describedby="new-asset-check"
            />
            <p id="new-asset-check" class={draftCheck.problems.length ? 'error' : 'ok'}>
              {draftCheck.problems.length ? draftCheck.problems.join('; ') : 'Valid JSON for this asset type'}
            </p>
            <button type="submit" disabled={draftCheck.problems.length > 0}>
              Create draft
            </button>
          </form>
        </section>
      )}
    </>
  );
}
