import { useState } from 'preact/hooks';
import { api, canOperate, errorText, type Schemas, type Session } from '../api';
import { AnswerText, Value } from '../answer';

type Result = Schemas['AgentResult'];

/**
 * The tool-calling agent (`POST /internal/v1/llm/execute`, service and admin keys) for a user of the
 * calling service. A held side-effect call pauses the run; it links to the pending-actions page, where
 * an operator or admin decides and sees the resumed run's answer.
 */
export function AgentPage({ session }: { session: Session }) {
  const [prompt, setPrompt] = useState('');
  const [user, setUser] = useState(session.user_id);
  const [result, setResult] = useState<Result | null>(null);
  const [run, setRun] = useState<Schemas['AgentRunView'] | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const execute = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    setRun(null);
    const { data, error: failed } = await api.POST('/internal/v1/llm/execute', {
      body: { prompt, user_id: user },
    });
    setBusy(false);
    if (data) setResult(data);
    else setError(errorText(failed));
  };
  const reload = async () => {
    if (!result) return;
    const { data, error: failed } = await api.GET('/internal/v1/llm/runs/{id}', {
      params: { path: { id: result.run_id } },
    });
    if (data) setRun(data);
    else setError(errorText(failed));
  };
  const held = result?.tool_calls.filter((c) => c.pending_action) ?? [];
  const shown = run?.result ?? result;

  return (
    <section>
      <h2>Agent</h2>
      <form onSubmit={(e) => void execute(e)}>
        <label for="agent-prompt">Prompt</label>
        <textarea
          id="agent-prompt"
          rows={3}
          value={prompt}
          onInput={(e) => setPrompt(e.currentTarget.value)}
          required
        />
        <label for="agent-user">For user</label>
        <input id="agent-user" value={user} onInput={(e) => setUser(e.currentTarget.value)} required />
        <button type="submit" disabled={busy || !prompt.trim()}>
          Run agent
        </button>
      </form>
      {canOperate(session) && (
        <p class="muted">
          Side-effect calls wait for a person in <a href="#/actions">Pending actions</a>.
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {shown && (
        <div data-testid="agent-result">
          <p class="muted">
            run {shown.run_id} · <strong data-testid="agent-status">{run?.status ?? shown.status}</strong> ·{' '}
            {shown.mode}
            {shown.model_used ? ` (${shown.model_used})` : ''} · {shown.timings.total_ms} ms
          </p>
          {held.length > 0 && !run && (
            <div role="status" data-testid="agent-held">
              {held.map((c) => (
                <p key={c.id}>
                  <strong>{c.tool}</strong> waits for a confirmation.{' '}
                  {canOperate(session) ? (
                    <a href={`#/actions/${c.pending_action!.action_id}`}>Confirm or reject it</a>
                  ) : (
                    'An operator or admin confirms or rejects it in the console.'
                  )}
                </p>
              ))}
              <button type="button" class="secondary" onClick={() => void reload()}>
                Reload the run
              </button>
            </div>
          )}
          <h3>Answer</h3>
          <AnswerText text={shown.final_response} testId="agent-answer" />
          {shown.tool_calls.length > 0 && <h3>Tool calls</h3>}
          {shown.tool_calls.map((c) => (
            <div key={c.id} class="call" data-testid={`agent-call-${c.tool}`}>
              <p>
                <strong>{c.tool}</strong>{' '}
                <span class="muted">
                  {c.pending_action && !c.decision
                    ? 'held for confirmation'
                    : c.success
                      ? 'succeeded'
                      : `failed: ${c.error}`}
                  {c.decision ? ` · ${c.decision}` : ''} · {c.duration_ms} ms
                </span>
              </p>
              <details>
                <summary>Inputs</summary>
                <Value value={c.params} label={`${c.tool} inputs`} />
              </details>
              {c.success && (!c.pending_action || c.decision === 'confirmed') && (
                <details open>
                  <summary>Output</summary>
                  <Value value={c.result} label={`${c.tool} output`} />
                </details>
              )}
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
