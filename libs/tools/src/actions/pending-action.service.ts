import { Injectable, OnModuleInit } from '@nestjs/common';

import { SideEffectGate } from '../core/side-effect-gate';
import { ToolRegistry } from '../core/tool-registry';
import type { PendingAction, ToolContext, ToolResult } from '../core/tool.types';
import { PendingActionEntity, PendingActionStatus } from './pending-action.entity';
import { PendingActionException } from './pending-action.exception';
import { PendingActionRepository } from './pending-action.repository';
import { ToolsConfig } from '../tools.config';

/** A confirmed run may take as long as the tool allows; this bounds the wait of the confirming request. */
const CONFIRMED_RUN_DEADLINE_MS = 120_000;

export interface PendingActionView {
  action_id: string;
  tool: string;
  input: Record<string, unknown>;
  status: PendingActionStatus;
  caller: string;
  requested_by: string;
  created_at: string;
  expires_at: string;
  decided_by: string | null;
  decided_at: string | null;
  result: Record<string, unknown> | null;
}

/** A person's decision on a held action, as told to whoever waits on it (the paused agent run). */
export interface ActionDecision {
  tenantId: string;
  actionId: string;
  tool: string;
  input: Record<string, unknown>;
  decision: 'confirmed' | 'rejected';
  /** The confirmed run's ToolResult; absent for a rejection. */
  result?: ToolResult;
  decidedBy: string;
  requestId: string;
  traceId: string;
}

/**
 * Something that waits on held actions (the assistant's paused agent runs). Called after the decision
 * is stored (and, on confirm, after the tool ran); what it returns is added to the confirm/reject
 * response as `run`. A port, so libs/tools does not depend on the assistant that resumes the run.
 */
export type ActionDecisionListener = (decision: ActionDecision) => Promise<ResumedRunView | null>;

/** The run a decision resumed, as the confirm/reject response shows it. */
export interface ResumedRunView {
  run_id: string;
  kind: string;
  status: string;
  final_response: string | null;
}

export interface Decider {
  tenantId: string;
  userId: string;
  requestId: string;
  traceId: string;
}

export function toPendingActionView(entity: PendingActionEntity): PendingActionView {
  return {
    action_id: entity.id,
    tool: entity.tool,
    input: entity.input,
    status: entity.status,
    caller: entity.caller,
    requested_by: entity.requestedBy,
    created_at: entity.createdAt.toISOString(),
    expires_at: entity.expiresAt.toISOString(),
    decided_by: entity.decidedBy,
    decided_at: entity.decidedAt?.toISOString() ?? null,
    result: entity.result,
  };
}

/**
 * Side-effect tool calls held for a person: the registry parks them here (the `SideEffectGate`), and
 * an operator or admin confirms (runs it once, through the registry) or rejects them.
 */
@Injectable()
export class PendingActionService extends SideEffectGate implements OnModuleInit {
  constructor(
    private readonly repository: PendingActionRepository,
    private readonly registry: ToolRegistry,
    private readonly config: ToolsConfig,
  ) {
    super();
  }

  private readonly listeners: ActionDecisionListener[] = [];

  /** Registers a party that resumes work waiting on a decision (see ActionDecisionListener). */
  onDecision(listener: ActionDecisionListener): void {
    this.listeners.push(listener);
  }

  private async notify(decision: ActionDecision): Promise<ResumedRunView | null> {
    let resumed: ResumedRunView | null = null;
    for (const listener of this.listeners) resumed = (await listener(decision)) ?? resumed;
    return resumed;
  }

  onModuleInit(): void {
    this.registry.setSideEffectGate(this);
  }

  async hold(context: ToolContext, tool: string, input: Record<string, unknown>): Promise<PendingAction> {
    const saved = await this.repository.create({
      tenantId: context.tenantId,
      tool,
      input,
      caller: context.caller ?? 'system',
      requestedBy: context.userId,
      requestId: context.requestId || null,
      expiresAt: new Date(Date.now() + this.config.TOOL_ACTION_TTL_SECONDS * 1000),
    });
    return {
      status: 'pending_confirmation',
      action_id: saved.id,
      tool,
      input,
      expires_at: saved.expiresAt.toISOString(),
    };
  }

  async list(
    tenantId: string,
    status: PendingActionStatus | undefined,
    limit: number,
  ): Promise<PendingActionView[]> {
    await this.repository.expire(tenantId);
    return (await this.repository.list(tenantId, status, limit)).map(toPendingActionView);
  }

  async get(tenantId: string, id: string): Promise<PendingActionView> {
    await this.repository.expire(tenantId);
    const action = await this.repository.find(tenantId, id);
    if (!action) throw PendingActionException.notFound(id);
    return toPendingActionView(action);
  }

  /** Runs the held call once, as the confirming person; a second confirm is a 409. */
  async confirm(
    decider: Decider,
    id: string,
  ): Promise<{ action: PendingActionView; result: ToolResult; run: ResumedRunView | null }> {
    const action = await this.decide(decider, id, 'confirmed');
    const controller = new AbortController();
    const result = await this.registry.execute(
      {
        tenantId: decider.tenantId,
        userId: action.requestedBy,
        requestId: decider.requestId,
        traceId: decider.traceId,
        deadline: Date.now() + CONFIRMED_RUN_DEADLINE_MS,
        signal: controller.signal,
        caller: 'operator',
        confirmed: true,
      },
      action.tool,
      action.input,
    );
    await this.repository.recordResult(decider.tenantId, id, result);
    const run = await this.notify({ ...this.decision(decider, action, 'confirmed'), result });
    return { action: await this.get(decider.tenantId, id), result, run };
  }

  async reject(decider: Decider, id: string): Promise<PendingActionView & { run: ResumedRunView | null }> {
    const action = await this.decide(decider, id, 'rejected');
    const run = await this.notify(this.decision(decider, action, 'rejected'));
    return { ...(await this.get(decider.tenantId, id)), run };
  }

  private decision(
    decider: Decider,
    action: PendingActionEntity,
    decision: 'confirmed' | 'rejected',
  ): ActionDecision {
    return {
      tenantId: decider.tenantId,
      actionId: action.id,
      tool: action.tool,
      input: action.input,
      decision,
      decidedBy: decider.userId,
      requestId: decider.requestId,
      traceId: decider.traceId,
    };
  }

  private async decide(
    decider: Decider,
    id: string,
    status: 'confirmed' | 'rejected',
  ): Promise<PendingActionEntity> {
    await this.repository.expire(decider.tenantId);
    const action = await this.repository.find(decider.tenantId, id);
    if (!action) throw PendingActionException.notFound(id);
    if (!(await this.repository.decide(decider.tenantId, id, status, decider.userId))) {
      const current = await this.repository.find(decider.tenantId, id);
      if (current?.status === 'expired') throw PendingActionException.expired(id, current.expiresAt);
      throw PendingActionException.notPending(id, current?.status ?? 'gone');
    }
    return action;
  }
}
