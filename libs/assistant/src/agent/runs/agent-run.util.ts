import { isKorean } from '@app/planner';
import type { AgentResult, AgentRunView, AgentToolCall } from '../agent.types';
import { toolMessageContent } from '../agent-tools.util';
import type { AgentRunEntity, AgentRunPendingCall } from './agent-run.entity';

export function toAgentRunView(run: AgentRunEntity): Omit<AgentRunView, 'webhook_deliveries'> {
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
    callback_url: run.callbackUrl,
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

/** Who a run's webhook event is about (from the request, or the stored run when only the row is at hand). */
export interface RunEventIds {
  runId: string;
  tenantId: string;
  userId: string;
  requestId: string | null;
  traceId: string | null;
  caller: string;
  keyId: string | null;
  mode: string;
  callbackUrl: string | null;
}

/**
 * The `data` of a run's webhook event: its ids and status, the final response, the held calls a person
 * must decide (`pending_actions`, while paused) and a summary of the calls. Tool results stay out of
 * it (`GET /internal/v1/llm/runs/{run_id}` has them, behind the caller's key).
 */
export function runWebhookData(
  ids: RunEventIds,
  status: AgentResult['status'],
  result: AgentResult | null,
  error?: string,
): Record<string, unknown> {
  const calls = result?.tool_calls ?? [];
  return {
    run_id: ids.runId,
    status,
    mode: ids.mode,
    user_id: ids.userId,
    request_id: ids.requestId,
    trace_id: ids.traceId,
    caller: ids.caller,
    key_id: ids.keyId,
    final_response: result?.final_response || null,
    pending_actions: calls
      .filter((call) => call.pending_action && !call.decision)
      .map((call) => ({
        call_id: call.id,
        action_id: call.pending_action!.action_id,
        tool: call.tool,
        input: call.pending_action!.input,
        expires_at: call.pending_action!.expires_at,
      })),
    tool_calls: calls.map((call) => ({
      id: call.id,
      tool: call.tool,
      success: call.success,
      error: call.error,
      ...(call.decision ? { decision: call.decision } : {}),
    })),
    warnings: result?.warnings ?? [],
    ...(error ? { error } : {}),
  };
}
