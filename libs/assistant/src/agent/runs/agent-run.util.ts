import { isKorean } from '@app/planner';
import type { AgentResult, AgentRunView, AgentToolCall } from '../agent.types';
import { toolMessageContent } from '../agent-tools.util';
import type { AgentRunEntity, AgentRunPendingCall } from './agent-run.entity';

export function toAgentRunView(run: AgentRunEntity): AgentRunView {
  return {
    run_id: run.id,
    status: run.status,
    mode: run.mode,
    user_id: run.userId,
    caller_id: run.callerId,
    key_id: run.keyId,
    caller: run.caller,
    request_id: run.requestId,
    trace_id: run.traceId,
    prompt: run.prompt,
    pending: run.pending.map(({ call_id, action_id, tool, decision }) => ({
      call_id,
      action_id,
      tool,
      decision,
    })),
    result: run.result as unknown as AgentResult | null,
    created_at: run.createdAt.toISOString(),
    updated_at: run.updatedAt.toISOString(),
  };
}

function titled(input: Record<string, unknown> | undefined): string {
  const title = input?.title ?? input?.name;
  return typeof title === 'string' && title.trim() ? ` "${title.trim()}"` : '';
}

/** The answer of a run paused on held side-effect calls. */
export function pausedAnswer(prompt: string, held: AgentToolCall[]): string {
  const list = held.map(
    (call) => `${call.tool}${titled(call.params)} (action ${call.pending_action!.action_id})`,
  );
  return isKorean(prompt)
    ? `다음 작업은 사람의 확인이 필요해 아직 실행하지 않았습니다: ${list.join(', ')}. 확인하거나 거부하면 이 실행이 이어지고 최종 답변이 저장됩니다.`
    : `These actions need a person's confirmation and were not run yet: ${list.join(', ')}. Confirming or rejecting them resumes this run and stores its final answer.`;
}

/** The fallback's answer once the held calls were decided (there is no model to write one). */
export function resumedFallbackAnswer(
  prompt: string,
  calls: AgentToolCall[],
  pending: AgentRunPendingCall[],
): string {
  const korean = isKorean(prompt);
  const lines = pending.map((held) => {
    const call = calls.find((c) => c.id === held.call_id);
    const name = `${held.tool}${titled(call?.params)}`;
    if (held.decision !== 'confirmed')
      return korean
        ? `${name}: 확인이 거부되어 실행하지 않았습니다. 게시하거나 변경한 것은 없습니다.`
        : `${name}: the confirmation was rejected, so it was not run; nothing was posted or changed.`;
    if (!call?.success)
      return korean
        ? `${name}: 확인 후 실행했지만 실패했습니다 (${call?.error ?? 'unknown error'}).`
        : `${name}: confirmed and run, but it failed (${call?.error ?? 'unknown error'}).`;
    const data = toolMessageContent(call.result, 600);
    return korean
      ? `${name}: 확인 후 실행했습니다. 결과: ${data}`
      : `${name}: confirmed and run. Result: ${data}`;
  });
  return lines.join('\n');
}
