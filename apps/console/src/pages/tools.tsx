import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../api';

type Tool = Schemas['ToolListingView'];
type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  description?: string;
  items?: JsonSchema;
};

/** A form generated from a tool's input schema: one field per top-level property, JSON for the rest. */
function SchemaForm({ tool, onRun }: { tool: Tool; onRun: (input: Record<string, unknown>) => void }) {
  const schema = tool.input_schema as JsonSchema;
  const properties = Object.entries(schema.properties ?? {});
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    const input: Record<string, unknown> = {};
    try {
      for (const [name, prop] of properties) {
        const raw = values[name];
        if (raw === undefined || raw === '') continue;
        if (prop.type === 'integer' || prop.type === 'number') input[name] = Number(raw);
        else if (prop.type === 'boolean') input[name] = raw === 'true';
        else if (prop.type === 'string') input[name] = raw;
        else input[name] = JSON.parse(raw);
      }
    } catch (e) {
      return setError(`Not JSON: ${(e as Error).message}`);
    }
    setError('');
    onRun(input);
  };
  return (
    <form onSubmit={(e) => void submit(e)}>
      {properties.map(([name, prop]) => {
        const id = `in-${name}`;
        const required = schema.required?.includes(name);
        return (
          <div key={name}>
            <label for={id}>
              {name} {required ? '(required)' : ''} <span class="muted">{prop.type ?? 'json'}</span>
            </label>
            {prop.enum ? (
              <select
                id={id}
                value={values[name] ?? ''}
                onChange={(e) => setValues({ ...values, [name]: e.currentTarget.value })}
                required={required}
              >
                <option value="">—</option>
                {prop.enum.map((v) => (
                  <option key={String(v)} value={String(v)}>
                    {String(v)}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                type={prop.type === 'integer' || prop.type === 'number' ? 'number' : 'text'}
                placeholder={prop.type === 'array' || prop.type === 'object' ? 'JSON' : ''}
                value={values[name] ?? ''}
                onInput={(e) => setValues({ ...values, [name]: e.currentTarget.value })}
                required={required}
              />
            )}
            {prop.description && <div class="muted">{prop.description}</div>}
          </div>
        );
      })}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit">Run {tool.name}</button>
    </form>
  );
}

function Timeline({ run }: { run: Schemas['StageRunView'] }) {
  const total = Math.max(1, run.duration_ms ?? 1);
  return (
    <div data-testid="stage-run">
      <p>
        Run {run.run_id}: <strong>{run.status}</strong> in {run.duration_ms} ms
      </p>
      <ol class="timeline">
        {run.results.map((step) => (
          <li key={step.id} data-testid={`step-${step.id}`}>
            <strong>{step.id}</strong> {step.tool_name} · <span>{step.status}</span> · {step.duration_ms ?? 0}{' '}
            ms
            {step.depends_on.length > 0 && <span class="muted"> · after {step.depends_on.join(', ')}</span>}
            <span
              class="bar"
              style={{
                width: `${Math.round(((step.duration_ms ?? 0) / total) * 12)}rem`,
                marginLeft: `${Math.round(((step.started_at_ms ?? 0) / total) * 6)}rem`,
              }}
            />
            {step.result?.error && <div class="error">{step.result.error}</div>}
          </li>
        ))}
      </ol>
    </div>
  );
}

const STAGE_EXAMPLE = [
  { id: 'servers', tool_name: 'ci_lookup', input: { filters: { ci_type: 'server' }, limit: 5 } },
  { id: 'details', tool_name: 'ci_lookup', input: { ids: { $ref: 'servers.data.items[*].id' } } },
];

export function ToolsPage() {
  const [tools, setTools] = useState<Tool[]>([]);
  const [selected, setSelected] = useState<Tool | null>(null);
  const [result, setResult] = useState<Schemas['ToolResult_unknown'] | null>(null);
  const [stage, setStage] = useState(JSON.stringify(STAGE_EXAMPLE, null, 2));
  const [run, setRun] = useState<Schemas['StageRunView'] | null>(null);
  const [runs, setRuns] = useState<Schemas['StageRunSummary'][]>([]);
  const [error, setError] = useState('');

  const loadRuns = async () => {
    const { data } = await api.GET('/ops/stage/runs', { params: { query: { limit: 10 } } });
    if (data) setRuns(data.runs);
  };
  useEffect(() => {
    void loadRuns();
  }, []);
  useEffect(() => {
    void api
      .GET('/ops/tools')
      .then(({ data, error: failed }) => (data ? setTools(data.tools) : setError(errorText(failed))));
  }, []);

  const runTool = async (input: Record<string, unknown>) => {
    if (!selected) return;
    const { data, error: failed } = await api.POST('/ops/tools/{name}/execute', {
      params: { path: { name: selected.name } },
      body: { input },
    });
    if (data) setResult(data);
    else setError(errorText(failed));
  };
  const runStage = async (event: Event) => {
    event.preventDefault();
    setError('');
    let steps: Schemas['StageToolDto'][];
    try {
      steps = JSON.parse(stage) as Schemas['StageToolDto'][];
    } catch (e) {
      return setError(`Stage steps are not JSON: ${(e as Error).message}`);
    }
    const { data, error: failed } = await api.POST('/ops/stage/execute', {
      body: { stage_name: 'console', tools: steps },
    });
    if (data) {
      setRun(data);
      await loadRuns();
    } else setError(errorText(failed));
  };
  const openRun = async (id: string) => {
    const { data } = await api.GET('/ops/stage/runs/{id}', { params: { path: { id } } });
    if (data) setRun(data);
  };

  return (
    <>
      <section>
        <h2>Tools</h2>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <label for="tool">Tool</label>
        <select
          id="tool"
          value={selected?.name ?? ''}
          onChange={(e) => (
            setResult(null),
            setSelected(tools.find((t) => t.name === e.currentTarget.value) ?? null)
          )}
        >
          <option value="">—</option>
          {tools.map((t) => (
            <option key={t.name} value={t.name}>
              {t.name} ({t.source})
            </option>
          ))}
        </select>
        {selected && (
          <>
            <p>{selected.description}</p>
            <details>
              <summary>Input and output schemas</summary>
              <pre>
                {JSON.stringify({ input: selected.input_schema, output: selected.output_schema }, null, 2)}
              </pre>
            </details>
            <SchemaForm key={selected.name} tool={selected} onRun={(input) => void runTool(input)} />
          </>
        )}
        {result && (
          <div data-testid="tool-result">
            <p>
              {result.success ? 'Success' : `Failed: ${result.error}`} ·{' '}
              {String(result.metadata.execution_time_ms)} ms
            </p>
            <pre>{JSON.stringify(result.data, null, 2)}</pre>
          </div>
        )}
      </section>
      <section>
        <h2>Stage</h2>
        <form onSubmit={(e) => void runStage(e)}>
          <label for="stage-steps">
            Steps (JSON: id, tool_name, input with {'{"$ref": "step.path"}'}, depends_on)
          </label>
          <textarea
            id="stage-steps"
            rows={12}
            value={stage}
            onInput={(e) => setStage(e.currentTarget.value)}
          />
          <button type="submit">Run stage</button>
        </form>
        {run && <Timeline run={run} />}
        {runs.length > 0 && (
          <>
            <h3>Stored runs</h3>
            <div class="scroll">
              <table data-testid="stored-runs">
                <thead>
                  <tr>
                    <th>Run</th>
                    <th>Stage</th>
                    <th>Status</th>
                    <th>Steps</th>
                    <th>Started</th>
                  </tr>
                </thead>
                <tbody>
                  {runs.map((r) => (
                    <tr key={r.run_id}>
                      <td>
                        <button type="button" class="secondary" onClick={() => void openRun(r.run_id)}>
                          {r.run_id.slice(0, 8)}
                        </button>
                      </td>
                      <td>{r.stage_name}</td>
                      <td>{r.status}</td>
                      <td>
                        {r.summary.succeeded}/{r.summary.total}
                      </td>
                      <td>{r.started_at}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </section>
    </>
  );
}
