import { DependencyHealth } from '@app/platform';
import { LlmException, PlannerExceptionCode } from '../planner.exception';
import { LlmChatResponse, LlmClient } from './llm-client';

/** Bound when no LLM endpoint is configured: callers check `configured` and use their fallbacks. */
export class UnconfiguredLlmClient extends LlmClient {
  readonly configured = false;
  readonly defaultModel = null;

  chat(): Promise<LlmChatResponse> {
    return Promise.reject(
      new LlmException(
        PlannerExceptionCode.LLM_NOT_CONFIGURED,
        'No language model is configured (set LLM_BASE_URL and LLM_MODEL).',
        false,
      ),
    );
  }

  health(): Promise<DependencyHealth> {
    return Promise.resolve({ status: 'disabled', reason: 'LLM_BASE_URL is not set' });
  }
}
