import { DependencyHealth } from '@app/platform';
import { LlmException, PlannerExceptionCode } from '../planner.exception';
import { LlmChatResponse, LlmClient } from './llm-client';
import { tracedLlmCall } from './traced-llm-call';

class ScriptedLlm extends LlmClient {
  readonly configured = true;
  readonly defaultModel = 'default-model';
  constructor(private readonly answer: () => Promise<LlmChatResponse>) {
    super();
  }
  chat(): Promise<LlmChatResponse> {
    return this.answer();
  }
  health(): Promise<DependencyHealth> {
    return Promise.resolve({ status: 'ok' } as DependencyHealth);
  }
}

describe('tracedLlmCall', () => {
  it('returns the response and records its model, latency and attempts', async () => {
    const response: LlmChatResponse = {
      content: 'hi',
      toolCalls: [],
      model: 'served-model',
      finishReason: 'stop',
      usage: null,
      attempts: 2,
      latencyMs: 42,
    };
    const { outcome, record } = await tracedLlmCall(new ScriptedLlm(() => Promise.resolve(response)), {
      messages: [],
    });
    expect(outcome).toBe(response);
    expect(record).toEqual({ model: 'served-model', ok: true, latency_ms: 42, attempts: 2, error: null });
  });

  it('returns a failure instead of throwing and records the attempts the client made', async () => {
    const failure = new LlmException(PlannerExceptionCode.LLM_TIMEOUT, 'too slow', true, { attempts: 3 });
    const { outcome, record } = await tracedLlmCall(new ScriptedLlm(() => Promise.reject(failure)), {
      messages: [],
    });
    expect(outcome).toBe(failure);
    expect(record).toMatchObject({ model: 'default-model', ok: false, attempts: 3, error: 'too slow' });
    expect(record.latency_ms).toBeGreaterThanOrEqual(0);
  });
});
