import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../api';
import { AnswerText, Value } from '../answer';

type Action = Schemas['PendingActionView'];
interface Outcome {
  action: Action;
  result?: Schemas['ToolResult_unknown'];
  run: Schemas['ResumedRunView'] | null;
}

/** The exact call a person approves: the tool and its inputs, as the agent or caller sent them. */
function Call({ action }: { action: Action }) {
  return (
    <pre class="wrap" data-testid="action-call" aria-label={`${action.tool} call`}>
      {`${action.tool}(${JSON.stringify(action.input, null, 2)})`}
    </pre>
  );
}

/** What the decision did: the tool's result (on confirm) and the answer of the agent run it resumed. */
function OutcomeView({ outcome }: { outcome: Outcome }) {
  const { action, result, run } = outcome;
  return (
    <div class="call" data-testid={`outcome-${action.action_id}`}>
      <p>
        <strong>{action.tool}</strong>: <span data-testid="outcome-status">{action.status}</span>
        {action.decided_by ? ` by ${action.decided_by}` : ''}
      </p>
      {result &&
        (result.success ? (
          <details open>
            <summary>Tool result</summary>
            <Value value={result.data} label={`${action.tool} result`} />
          </details>
        ) : (
          <p class="error">Tool failed: {result.error}</p>
        ))}
      {run ? (
        <div data-testid="resumed-run">
          <h3>Resumed run</h3>
          <p class="muted">
            {run.kind} run {run.run_id} · {run.status}
          </p>
          {run.final_response != null && <AnswerText text={run.final_response} testId="resumed-answer" />}
        </div>
      ) : (
        <p class="muted">No agent run was waiting on this action.</p>
      )}
    </div>
  );
}

/**
 * Side-effect tool calls held for a person (issue 29): the exact call and inputs, confirm (runs it once)
 * or reject, and the result of the agent run the decision resumed. Operators and admins only, like
 * `/api/actions`: a service key (what an agent holds) cannot approve its own side effect.
 */
export function ActionsPage() {
  const [pending, setPending] = useState<Action[] | null>(null);
  const [recent, setRecent] = useState<Action[]>([]);
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const [busy, setBusy] = useState('');
  const [error, setError] = useState('');
  const focus = /^#\/actions\/([\w-]+)$/.exec(location.hash)?.[1];

  const load = async () => {
    const [open, all] = await Promise.all([
      api.GET('/api/actions', { params: { query: { status: 'pending', limit: 100 } } }),
      api.GET('/api/actions', { params: { query: { limit: 20 } } }),
    ]);
    if (open.data) setPending(open.data.actions);
    else setError(errorText(open.error));
    if (all.data) setRecent(all.data.actions.filter((a) => a.status !== 'pending'));
  };
  useEffect(() => {
    void load();
  }, []);

  const decide = async (action: Action, decision: 'confirm' | 'reject') => {
    setBusy(action.action_id);
    setError('');
    const params = { params: { path: { id: action.action_id } } };
    if (decision === 'confirm') {
      const { data, error: failed } = await api.POST('/api/actions/{id}/confirm', params);
      if (data) setOutcomes((o) => [{ action: data.action, result: data.result, run: data.run }, ...o]);
      else setError(`${action.tool}: ${errorText(failed)}`);
    } else {
      const { data, error: failed } = await api.POST('/api/actions/{id}/reject', params);
      if (data) {
        const { run, ...view } = data;
        setOutcomes((o) => [{ action: view, run }, ...o]);
      } else setError(`${action.tool}: ${errorText(failed)}`);
    }
    setBusy('');
    await load();
  };

  return (
    <>
      <section>
        <h2>Pending actions</h2>
        <p class="muted">
          Tool calls with side effects wait here for a person. Confirm runs the call once, as shown; reject
          drops it. Either way the agent run that asked for it resumes and its answer appears below.
        </p>
        <button type="button" class="secondary" onClick={() => void load()}>
          Refresh
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        {pending === null ? (
          <p class="muted">Loading…</p>
        ) : pending.length === 0 ? (
          <p class="muted" data-testid="no-pending">
            Nothing waits for a decision.
          </p>
        ) : (
          pending.map((a) => (
            <div
              key={a.action_id}
              class="call"
              data-testid={`action-${a.action_id}`}
              aria-current={a.action_id === focus ? 'true' : undefined}
            >
              <p>
                <strong>{a.tool}</strong>{' '}
                <span class="muted">
                  requested by {a.requested_by} via {a.caller} · {a.created_at} · expires {a.expires_at}
                </span>
              </p>
              <Call action={a} />
              <button type="button" disabled={busy !== ''} onClick={() => void decide(a, 'confirm')}>
                Confirm {a.tool}
              </button>
              <button
                type="button"
                class="danger"
                disabled={busy !== ''}
                onClick={() => void decide(a, 'reject')}
              >
                Reject {a.tool}
              </button>
              {busy === a.action_id && <span aria-live="polite"> Running…</span>}
            </div>
          ))
        )}
      </section>
      {outcomes.length > 0 && (
        <section aria-live="polite">
          <h2>Decided now</h2>
          {outcomes.map((o) => (
            <OutcomeView key={o.action.action_id} outcome={o} />
          ))}
        </section>
      )}
      {recent.length > 0 && (
        <section>
          <h2>Recent decisions</h2>
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th>Tool</th>
                  <th>Status</th>
                  <th>Decided by</th>
                  <th>Decided at</th>
                </tr>
              </thead>
              <tbody>
                {recent.map((a) => (
                  <tr key={a.action_id}>
                    <td>{a.tool}</td>
                    <td>{a.status}</td>
                    <td>{a.decided_by ?? '—'}</td>
                    <td>{a.decided_at ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </>
  );
}
