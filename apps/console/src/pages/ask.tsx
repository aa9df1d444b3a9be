import { useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../api';
import { AnswerText, Value } from '../answer';

type Explanation = NonNullable<Schemas['PlanOutcome']['explain']>;
type ExplainedTool = Explanation['tools'][number];

/** A tool left out this close to its bar (as a share of the bar) is shown as a near miss. */
const NEAR_MISS = 0.5;
const EVIDENCE_SHOWN = 3;

function Evidence({ tool }: { tool: ExplainedTool }) {
  // The published text that matched first; the scores (classifier, relative evidence) after it.
  const ranked = [...tool.evidence].sort(
    (a, b) =>
      Number(['classifier', 'evidence_score'].includes(a.source)) -
      Number(['classifier', 'evidence_score'].includes(b.source)),
  );
  return (
    <ul>
      {ranked.slice(0, EVIDENCE_SHOWN).map((e, i) => (
        <li key={i} data-testid={`evidence-${tool.tool}`}>
          <span class={e.against ? 'error' : undefined}>
            {e.against ? 'against: ' : ''}
            {e.source.replace(/_/g, ' ')}
          </span>{' '}
          “{e.text}”{e.matched?.length ? <span class="muted"> · matched {e.matched.join(', ')}</span> : null}
          {e.value !== undefined ? <span class="muted"> · {e.value}</span> : null}
        </li>
      ))}
    </ul>
  );
}

/** Why this plan: the planner and why, the chosen tools with their top evidence, near misses, parameter sources. */
function WhyPanel({ explain }: { explain: Explanation }) {
  const chosen = explain.tools.filter((t) => t.chosen);
  const nearMisses = explain.tools
    .filter((t) => !t.chosen && t.score > 0 && t.score >= t.bar * NEAR_MISS)
    .slice(0, 3);
  return (
    <section data-testid="why" aria-labelledby="why-heading">
      <h3 id="why-heading">Why this plan</h3>
      <p data-testid="why-planner">
        <strong>{explain.planner.source}</strong>: {explain.planner.message}
      </p>
      <p class="muted">
        Knowledge {explain.knowledge.version} · classifier {explain.classifier} · threshold{' '}
        {explain.thresholds.tool} ({explain.thresholds.evidence} with the tool's own evidence)
      </p>
      <h4>Chosen tools</h4>
      {chosen.length ? (
        <ul>
          {chosen.map((tool) => (
            <li key={tool.tool} data-testid={`why-chosen-${tool.tool}`}>
              <strong>{tool.tool}</strong> · score {tool.score} · {tool.decision}
              <Evidence tool={tool} />
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No tool: the question needs none.</p>
      )}
      {nearMisses.length > 0 && (
        <>
          <h4>Left out, close to the threshold</h4>
          <ul>
            {nearMisses.map((tool) => (
              <li key={tool.tool} data-testid={`why-rejected-${tool.tool}`}>
                <strong>{tool.tool}</strong> · score {tool.score} · {tool.decision}
                <Evidence tool={tool} />
              </li>
            ))}
          </ul>
        </>
      )}
      {explain.parameters.length > 0 && (
        <>
          <h4>Parameters</h4>
          <table data-testid="why-parameters">
            <thead>
              <tr>
                <th>Step</th>
                <th>Parameter</th>
                <th>Value</th>
                <th>From</th>
              </tr>
            </thead>
            <tbody>
              {explain.parameters.map((p) => (
                <tr key={`${p.step_id}.${p.name}`}>
                  <td>{p.step_id}</td>
                  <td>{p.name}</td>
                  <td>
                    <code>{p.value === null ? '—' : JSON.stringify(p.value)}</code>
                  </td>
                  <td>
                    {p.source.replace(/_/g, ' ')} <span class="muted">· {p.detail}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {explain.llm && (
        <>
          <h4>LLM</h4>
          <p class="muted">
            Prompt {explain.llm.prompt.source} {explain.llm.prompt.name} v{explain.llm.prompt.version} ·{' '}
            {explain.llm.tools_sent.length} tools sent
          </p>
          <ol>
            {explain.llm.attempts.map((a, i) => (
              <li key={i}>
                {a.source}: {a.outcome.replace(/_/g, ' ')} · {a.message}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function PlanView({ outcome }: { outcome: Schemas['PlanOutcome'] }) {
  return (
    <div data-testid="plan">
      <h3>Plan</h3>
      <p>
        Planner: <strong>{outcome.planner}</strong>
        {outcome.model ? ` (${outcome.model})` : ''} · {outcome.valid ? 'valid' : 'invalid'}
        {outcome.plan && ` · intent: ${outcome.plan.intent}`}
      </p>
      {outcome.errors.map((e) => (
        <p key={JSON.stringify(e)} class="error">
          {JSON.stringify(e)}
        </p>
      ))}
      <ol>
        {outcome.plan?.steps.map((step) => (
          <li key={step.id}>
            <strong>{step.id}</strong> {step.tool_type}
            {step.source && <span class="muted"> · source {step.source}</span>}
            {step.depends_on?.length ? (
              <span class="muted"> · after {step.depends_on.join(', ')}</span>
            ) : null}
            {step.purpose && <div>{step.purpose}</div>}
            <pre>{JSON.stringify(step.parameters, null, 2)}</pre>
          </li>
        ))}
      </ol>
      {outcome.rejected.length > 0 && <p class="muted">{outcome.rejected.length} rejected plan attempts</p>}
      {outcome.explain && <WhyPanel explain={outcome.explain} />}
    </div>
  );
}

export function AskPage() {
  const [query, setQuery] = useState('');
  const [plan, setPlan] = useState<Schemas['PlanOutcome'] | null>(null);
  const [answer, setAnswer] = useState<Schemas['AskResult'] | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const go = async (mode: 'plan' | 'ask') => {
    setBusy(true);
    setError('');
    setAnswer(null);
    if (mode === 'plan') {
      const { data, error: failed } = await api.POST('/ops/plan', { body: { query, explain: true } });
      if (data) setPlan(data);
      else setError(errorText(failed));
    } else {
      const { data, error: failed } = await api.POST('/ops/ask', { body: { query, explain: true } });
      if (data) {
        setAnswer(data);
        setPlan(data.planning);
      } else setError(errorText(failed));
    }
    setBusy(false);
  };

  return (
    <section>
      <h2>Plan and ask</h2>
      <p class="muted">
        A step with side effects waits for a person: confirm or reject it in{' '}
        <a href="#/actions">Pending actions</a>.
      </p>
      <form onSubmit={(e) => (e.preventDefault(), void go('ask'))}>
        <label for="question">Question</label>
        <textarea
          id="question"
          rows={3}
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
          required
        />
        <button type="button" class="secondary" disabled={busy || !query} onClick={() => void go('plan')}>
          Plan only
        </button>
        <button type="submit" disabled={busy || !query}>
          Ask
        </button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {plan && <PlanView outcome={plan} />}
      {answer && (
        <div data-testid="answer">
          <h3>Results</h3>
          <ol>
            {answer.execution?.steps.map((s) => (
              <li key={s.step_id} data-testid={`step-result-${s.step_id}`}>
                {s.step_id} {s.tool_type}
                {s.source ? ` (source ${s.source})` : ''}: {s.status} · {s.duration_ms} ms
                {s.result.success ? (
                  s.result.data != null && (
                    <details open>
                      <summary>Output</summary>
                      <Value value={s.result.data} label={`${s.step_id} output`} />
                    </details>
                  )
                ) : (
                  <div class="error">{s.result.error}</div>
                )}
              </li>
            ))}
          </ol>
          <h3>Answer</h3>
          <AnswerText text={answer.answer} />
          <p class="muted">
            {answer.status} · answer by {answer.answer_source}
          </p>
        </div>
      )}
    </section>
  );
}

interface Turn {
  question: string;
  result: Schemas['ChatResult'];
}

export function ChatPage() {
  const [message, setMessage] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [conversation, setConversation] = useState<string | undefined>();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const send = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    const { data, error: failed } = await api.POST('/api/chat', {
      body: { message, ...(conversation ? { conversation_id: conversation } : {}) },
    });
    setBusy(false);
    if (!data) return setError(errorText(failed));
    setConversation(data.conversation_id);
    setTurns((t) => [...t, { question: message, result: data }]);
    setMessage('');
  };

  return (
    <section>
      <h2>Chat</h2>
      <div aria-live="polite">
        {turns.map((turn, i) => (
          <div key={i} class="result">
            <p>
              <strong>You:</strong> {turn.question}
            </p>
            <div>
              <strong>Assistant:</strong> <AnswerText text={turn.result.answer} testId="chat-answer" />
            </div>
            {turn.result.citations.length > 0 && (
              <ol class="muted">
                {turn.result.citations.map((c, j) => (
                  <li key={j}>
                    {c.kind === 'document' ? (
                      <a href={`#/documents/${c.document_id}`}>
                        [{j + 1}] {c.document_name} · chunk {c.chunk_index}
                        {c.page != null ? ` · page ${c.page}` : ''}
                      </a>
                    ) : (
                      <a href={c.url} rel="noreferrer noopener" target="_blank">
                        [{j + 1}] {c.title}
                      </a>
                    )}
                  </li>
                ))}
              </ol>
            )}
          </div>
        ))}
      </div>
      <form onSubmit={(e) => void send(e)}>
        <label for="chat-message">Message</label>
        <textarea
          id="chat-message"
          rows={2}
          value={message}
          onInput={(e) => setMessage(e.currentTarget.value)}
          required
        />
        <button type="submit" disabled={busy}>
          Send
        </button>
        {conversation && (
          <button type="button" class="secondary" onClick={() => (setConversation(undefined), setTurns([]))}>
            New conversation
          </button>
        )}
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}
