import { Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { ErrorKind } from '@app/platform';
import { SchemaIssue, CompiledSchema, SchemaValidator } from './schema-validator';
import { SideEffectGate } from './side-effect-gate';
import { TenantToolLimiter } from './tenant-tool-limiter';
import { ToolPolicyService } from './tool-policy.service';
import { BUILTIN_TOOL } from './tool.decorator';
import { failedToolResult } from './tool-result';
import { ToolsException, ToolsExceptionCode } from './tool-exceptions';
import {
  JsonSchema,
  Tool,
  ToolContext,
  ToolDefinition,
  ToolError,
  ToolErrorCode,
  ToolOutput,
  ToolResult,
} from './tool.types';

interface RegisteredTool {
  tool: Tool;
  input: CompiledSchema;
  output: CompiledSchema | null;
  available: boolean;
}

export interface ToolListing extends ToolDefinition {
  available: boolean;
}

export type ToolSetListener = (change: { tenantId: string | null; names: string[] }) => void;

function isTool(value: unknown): value is Tool {
  return (
    typeof value === 'object' &&
    value !== null &&
    'definition' in value &&
    typeof (value as Tool).execute === 'function'
  );
}

/**
 * A schema compiled on its first check. The start-up registrations (built-ins, every tenant's published
 * tools) compile nothing: Ajv's code generation for every tool was ~0.15 s of CPU before readiness, and
 * most tools are not called soon after a start.
 */
function compiledOnFirstUse(compile: () => CompiledSchema): CompiledSchema {
  let compiled: CompiledSchema | undefined;
  return { check: (value) => (compiled ??= compile()).check(value) };
}

function elapsedSince(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/**
 * Every tool a tenant can use: built-ins (providers marked @BuiltinTool, found by DI discovery),
 * external MCP tools (shared), and the tenant's own dynamic tools from published assets. Lookups are
 * map reads and each replacement is one map write, so a change is atomic for concurrent callers.
 */
@Injectable()
export class ToolRegistry implements OnModuleInit {
  private readonly logger = new Logger(ToolRegistry.name);
  private readonly validator = new SchemaValidator();
  private readonly builtins = new Map<string, RegisteredTool>();
  private readonly external = new Map<string, RegisteredTool>();
  private dynamic = new Map<string, ReadonlyMap<string, RegisteredTool>>();
  private readonly listeners = new Set<ToolSetListener>();
  private gate: SideEffectGate | null = null;

  constructor(
    private readonly discovery: DiscoveryService,
    @Optional() private readonly limiter?: TenantToolLimiter,
    @Optional() private readonly policies?: ToolPolicyService,
  ) {}

  onModuleInit(): void {
    for (const { instance, metatype } of this.discovery.getProviders()) {
      if (!instance || !metatype || !Reflect.getMetadata(BUILTIN_TOOL, metatype)) continue;
      if (!isTool(instance)) throw new Error(`${metatype.name} is marked @BuiltinTool but is not a Tool`);
      this.registerBuiltin(instance);
    }
    this.logger.log({ msg: 'built-in tools registered', tools: [...this.builtins.keys()] });
  }

  registerBuiltin(tool: Tool): void {
    if (this.builtins.has(tool.definition.name))
      throw new Error(`duplicate built-in tool ${tool.definition.name}`);
    this.builtins.set(tool.definition.name, this.prepare(tool, { lazy: true }));
    this.notify(null, [tool.definition.name]);
  }

  /** Adds or replaces one tenant's dynamic tool. A name taken by a built-in is refused. */
  setDynamicTool(tenantId: string, tool: Tool): void {
    const name = tool.definition.name;
    if (this.builtins.has(name) || this.external.has(name)) {
      throw new ToolsException(
        ToolsExceptionCode.TOOL_NAME_CONFLICT,
        ErrorKind.CONFLICT,
        `"${name}" is the name of a built-in or external tool.`,
        { tool: name },
      );
    }
    const next = new Map(this.dynamic.get(tenantId) ?? []);
    next.set(name, this.prepare(tool));
    this.swapTenant(tenantId, next);
    this.notify(tenantId, [name]);
  }

  removeDynamicTool(tenantId: string, name: string): boolean {
    const current = this.dynamic.get(tenantId);
    if (!current?.has(name)) return false;
    const next = new Map(current);
    next.delete(name);
    this.swapTenant(tenantId, next);
    this.notify(tenantId, [name]);
    return true;
  }

  /** Replaces all of a tenant's dynamic tools at once (start-up load). */
  replaceDynamicTools(tenantId: string, tools: Tool[]): void {
    const next = new Map<string, RegisteredTool>();
    for (const tool of tools) {
      if (this.builtins.has(tool.definition.name)) {
        this.logger.warn({
          msg: 'dynamic tool shadows a built-in, skipped',
          tool: tool.definition.name,
          tenantId,
        });
        continue;
      }
      next.set(tool.definition.name, this.prepare(tool, { lazy: true }));
    }
    this.swapTenant(tenantId, next);
    this.notify(tenantId, [...next.keys()]);
  }

  /** External (MCP) tools are shared by every tenant; a dead server marks them unavailable. */
  setExternalTool(tool: Tool, available = true): void {
    const prepared = this.prepare(tool);
    prepared.available = available;
    this.external.set(tool.definition.name, prepared);
    this.notify(null, [tool.definition.name]);
  }

  setExternalAvailability(prefix: string, available: boolean): void {
    const names: string[] = [];
    for (const [name, entry] of this.external) {
      if (name.startsWith(prefix) && entry.available !== available) {
        this.external.set(name, { ...entry, available });
        names.push(name);
      }
    }
    if (names.length) this.notify(null, names);
  }

  removeExternalTools(prefix: string): void {
    const names = [...this.external.keys()].filter((name) => name.startsWith(prefix));
    for (const name of names) this.external.delete(name);
    if (names.length) this.notify(null, names);
  }

  /** Installs the store of pending actions (the pending actions service does at start-up). */
  setSideEffectGate(gate: SideEffectGate): void {
    this.gate = gate;
  }

  /** Called on every change of a tool set (tenantId null: all tenants). Returns an unsubscribe. */
  onChange(listener: ToolSetListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(tenantId: string): ToolListing[] {
    return [...this.entries(tenantId).values()]
      .map(({ tool, available }) => ({ ...tool.definition, available }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  definition(tenantId: string, name: string): ToolListing | undefined {
    const entry = this.lookup(tenantId, name);
    return entry ? { ...entry.tool.definition, available: entry.available } : undefined;
  }

  has(tenantId: string, name: string): boolean {
    return this.lookup(tenantId, name) !== undefined;
  }

  /** Validates (and fills defaults into a copy of) the input; throws 404 for an unknown tool. */
  validateInput(
    tenantId: string,
    name: string,
    input: unknown,
  ): { input: Record<string, unknown>; issues: SchemaIssue[] } {
    const entry = this.lookup(tenantId, name);
    if (!entry) throw ToolsException.notFound(name);
    const copy = structuredClone(input ?? {}) as Record<string, unknown>;
    return { input: copy, issues: entry.input.check(copy) };
  }

  /**
   * Runs a tool. An unknown tool throws (404); everything else — bad input, timeout, cancellation,
   * a thrown error, output not matching the schema — is a failed ToolResult.
   */
  async execute(context: ToolContext, name: string, rawInput: unknown): Promise<ToolResult> {
    const started = performance.now();
    const entry = this.lookup(context.tenantId, name);
    if (!entry) throw ToolsException.notFound(name);
    const fail = (code: string, message: string, details?: Record<string, unknown>): ToolResult =>
      failedToolResult(name, code, message, details, elapsedSince(started));

    if (!entry.available) return fail(ToolErrorCode.UNAVAILABLE, `Tool "${name}" is currently unavailable.`);
    const { input, issues } = this.validateInput(context.tenantId, name, rawInput);
    if (issues.length) return fail(ToolErrorCode.INVALID_INPUT, `Invalid input for ${name}.`, { issues });
    // The tenant's tool_access policy binds every caller: who may run the tool, and whether a person must confirm.
    const admission = this.policies ? await this.policies.admit(context, name) : null;
    if (admission && !admission.allowed) return fail(admission.code, admission.message, admission.details);
    // The one gate every caller passes: a side effect runs only once a human confirmed it, unless the
    // tenant's published tool_access rule for the tool says `requires_confirmation: false` (a trusted
    // tool opted out); `true` holds a tool without side effects too.
    const policyRule = admission?.allowed === true ? admission.match?.rule.requires_confirmation : undefined;
    const needsConfirmation = policyRule ?? entry.tool.definition.has_side_effects;
    if (needsConfirmation && context.confirmed !== true) {
      const why = policyRule === true ? 'needs a confirmation (tool_access policy)' : 'has side effects';
      if (!this.gate) {
        return fail(
          ToolErrorCode.CONFIRMATION_REQUIRED,
          `${name} ${why} and no confirmation store is available, so it was not run.`,
        );
      }
      const pending = await this.gate.hold(context, name, input);
      return {
        ...fail(
          ToolErrorCode.CONFIRMATION_REQUIRED,
          `${name} ${why}: it was not run and waits for a person to confirm action ${pending.action_id}.`,
          { action_id: pending.action_id, expires_at: pending.expires_at },
        ),
        data: pending,
        pending_action: pending,
      };
    }

    const budget = Math.min(entry.tool.definition.timeout_ms, context.deadline - Date.now());
    if (budget <= 0) return fail(ToolErrorCode.TIMEOUT, `No time left to run ${name}.`, { timeout_ms: 0 });
    if (context.signal.aborted)
      return fail(ToolErrorCode.CANCELLED, `${name} was cancelled before it started.`);

    const release = this.limiter
      ? await this.limiter.acquire(context.tenantId, context.signal)
      : () => undefined;
    if (!release) {
      if (context.signal.aborted)
        return fail(ToolErrorCode.CANCELLED, `${name} was cancelled before it started.`);
      return fail(
        ToolErrorCode.RATE_LIMITED,
        `Too many tool runs of this tenant at once; ${name} was not run. Retry shortly.`,
        { retry_after_seconds: this.limiter!.retryAfterSeconds },
      );
    }
    const slot =
      admission?.allowed === true && this.policies
        ? await this.policies.acquire(context, name, admission.match)
        : null;
    if (slot && !slot.allowed) {
      release();
      return fail(slot.code, slot.message, slot.details);
    }
    try {
      return await this.run(entry, context, name, input, fail);
    } finally {
      slot?.release();
      release();
    }
  }

  private async run(
    entry: RegisteredTool,
    context: ToolContext,
    name: string,
    input: Record<string, unknown>,
    fail: (code: string, message: string, details?: Record<string, unknown>) => ToolResult,
  ): Promise<ToolResult> {
    const started = performance.now();
    const budget = Math.min(entry.tool.definition.timeout_ms, context.deadline - Date.now());
    if (budget <= 0) return fail(ToolErrorCode.TIMEOUT, `No time left to run ${name}.`, { timeout_ms: 0 });
    const controller = new AbortController();
    const onAbort = () => controller.abort(context.signal.reason);
    context.signal.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    try {
      const outcome = await Promise.race<ToolOutput | { timedOut: true } | { cancelled: true }>([
        entry.tool.execute({ ...context, deadline: Date.now() + budget, signal: controller.signal }, input),
        new Promise((resolve) => {
          timer = setTimeout(() => resolve({ timedOut: true }), budget);
        }),
        new Promise((resolve) =>
          controller.signal.addEventListener('abort', () => resolve({ cancelled: true }), { once: true }),
        ),
      ]);
      if ('timedOut' in outcome) {
        controller.abort(new Error('timeout'));
        return fail(ToolErrorCode.TIMEOUT, `${name} did not finish within ${budget} ms.`, {
          timeout_ms: budget,
        });
      }
      if ('cancelled' in outcome) return fail(ToolErrorCode.CANCELLED, `${name} was cancelled.`);
      const outputIssues = entry.output ? entry.output.check(outcome.data) : [];
      if (outputIssues.length) {
        return fail(ToolErrorCode.INVALID_OUTPUT, `${name} returned output that does not match its schema.`, {
          issues: outputIssues,
        });
      }
      return {
        success: true,
        data: outcome.data,
        error: null,
        error_details: null,
        warnings: outcome.warnings ?? [],
        metadata: { ...outcome.metadata, tool: name, execution_time_ms: elapsedSince(started) },
      };
    } catch (error) {
      if (error instanceof ToolError) return fail(error.code, error.message, error.details);
      this.logger.warn({ msg: 'tool failed', tool: name, error: (error as Error).message });
      return fail(ToolErrorCode.EXECUTION_FAILED, (error as Error).message, {
        exception_type: (error as Error).name,
      });
    } finally {
      clearTimeout(timer);
      context.signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * `lazy`: the schemas compile on the tool's first validation (start-up loads, whose schemas were
   * checked when they were written or published); otherwise now, so that a single registration with an
   * invalid schema is refused to its caller.
   */
  private prepare(tool: Tool, { lazy = false } = {}): RegisteredTool {
    const { input_schema, output_schema, name } = tool.definition;
    const compile = (schema: JsonSchema) => {
      try {
        return this.validator.compile(schema);
      } catch (error) {
        throw new Error(`tool ${name} has an invalid schema: ${(error as Error).message}`);
      }
    };
    const schema = (value: JsonSchema) => (lazy ? compiledOnFirstUse(() => compile(value)) : compile(value));
    return {
      tool,
      input: schema(input_schema),
      output: output_schema ? schema(output_schema) : null,
      available: true,
    };
  }

  private swapTenant(tenantId: string, tools: ReadonlyMap<string, RegisteredTool>): void {
    const next = new Map(this.dynamic);
    if (tools.size) next.set(tenantId, tools);
    else next.delete(tenantId);
    this.dynamic = next;
  }

  private lookup(tenantId: string, name: string): RegisteredTool | undefined {
    return this.builtins.get(name) ?? this.external.get(name) ?? this.dynamic.get(tenantId)?.get(name);
  }

  private entries(tenantId: string): Map<string, RegisteredTool> {
    return new Map([...(this.dynamic.get(tenantId) ?? []), ...this.external, ...this.builtins]);
  }

  private notify(tenantId: string | null, names: string[]): void {
    for (const listener of this.listeners) {
      try {
        listener({ tenantId, names });
      } catch (error) {
        this.logger.warn({ msg: 'tool set listener failed', error: (error as Error).message });
      }
    }
  }
}
