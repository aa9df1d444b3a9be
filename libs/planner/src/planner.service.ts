import { createHash } from 'node:crypto';
import { Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { runAsTenant, type AssetLifecycleEvent } from '@app/platform';
import { ToolListing, ToolRegistry } from '@app/tools';
import { DOCUMENT_MATCH_PASSAGES, DocumentMatcher, isDocumentTool } from './fallback/document-signal';
import { FallbackPlanner } from './fallback/fallback-planner';
import { INTERNAL_SOURCE_REF } from '@app/asset-registry';
import { loadSourceCatalogs, type SourceCatalog } from './knowledge/source-catalogs';
import { PLANNER_ASSET_NAMES } from './knowledge/asset-planning-knowledge';
import { knowledgeVersion } from './knowledge/knowledge-version';
import { PlanningKnowledge } from './knowledge/planning-knowledge';
import { explainPlan } from './explain/plan-explainer';
import { LlmChatResponse, LlmClient, LlmMessage } from './llm/llm-client';
import { planJsonSchema } from './plan/plan-json-schema';
import { PlanValidator } from './plan/plan-validator';
import {
  LlmPlanExplanation,
  Plan,
  PlanAssetVersions,
  PlanIssue,
  PlannerChoice,
  PlannerSource,
  PlanOutcome,
  PlanValidation,
  RejectedPlanAttempt,
} from './plan/plan.types';
import { PlannerOptions } from './planner-options';
import { LlmException } from './planner.exception';
import { DEFAULT_PLANNER_SYSTEM_PROMPT, PromptBuilder } from './prompt/prompt-builder';

export interface PlanRequest {
  tenantId: string;
  query: string;
  /** Overrides the configured model. */
  model?: string;
  /** false: plan deterministically even when an LLM is configured. */
  useLlm?: boolean;
  now?: Date;
  signal?: AbortSignal;
  /** Also return why the plan was chosen (`explain`); nothing of it is computed otherwise. */
  explain?: boolean;
}

const LLM_ATTEMPTS: PlannerSource[] = ['llm', 'llm_repair'];
/** The built-in system prompt named by a digest of its text (what changed between two plans shows). */
const BUILTIN_PROMPT_VERSION = createHash('sha256')
  .update(DEFAULT_PLANNER_SYSTEM_PROMPT)
  .digest('hex')
  .slice(0, 12);

function extractJson(text: string): unknown {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(trimmed);
  return JSON.parse(fenced ? fenced[1] : trimmed);
}

export const KNOWLEDGE_INCOMPLETE_PREFIX = 'knowledge_incomplete';

/**
 * A plan made without the tenant's catalog or keyword mappings reads the question with less to go on (filter
 * values, synonyms); it says so, so a caller asking right after a first start knows why (the demo loader
 * publishes them first, within seconds of ready).
 */
function knowledgeWarnings(catalog: unknown, mappings: unknown): string[] {
  const missing = [
    catalog ? null : `catalog "${PLANNER_ASSET_NAMES.catalog}"`,
    mappings ? null : `mapping "${PLANNER_ASSET_NAMES.mappings}"`,
  ].filter(Boolean);
  if (!missing.length) return [];
  return [
    `${KNOWLEDGE_INCOMPLETE_PREFIX}: no published ${missing.join(' or ')} for this tenant; the plan uses the tools' own descriptions only (publish them, or load the demo data)`,
  ];
}

/**
 * Turns a question into a validated plan: the LLM plans from the tools, catalog and mappings; an
 * invalid or malformed plan goes back to it once with the errors; if that fails too (or no LLM is
 * configured, or it is unreachable) the deterministic planner plans instead.
 */
/** The planner waits this long for the document signal, then plans without it. */
const DOCUMENT_MATCH_TIMEOUT_MS = 1500;

/** What a publish changes for the deterministic planner (it retrains on them). */
const KNOWLEDGE_ASSETS = new Set(['tool', 'mapping', 'catalog', 'query', 'source', 'resolver']);
/** Retraining waits this long after a publish, so the registry and caches have the new version. */
const RETRAIN_DELAY_MS = 500;

@Injectable()
export class PlannerService implements OnModuleDestroy {
  private readonly retrain = new Map<string, NodeJS.Timeout>();

  /**
   * Training at publish time: after a tenant publishes, rolls back or archives knowledge or a tool, the
   * planner trains on the new state in the background, so the next question finds it ready.
   */
  @OnEvent('asset.published')
  @OnEvent('asset.rolled_back')
  @OnEvent('asset.archived')
  onKnowledgeChanged(event: AssetLifecycleEvent): void {
    if (!KNOWLEDGE_ASSETS.has(event.assetType)) return;
    clearTimeout(this.retrain.get(event.tenantId));
    const timer = setTimeout(() => {
      this.retrain.delete(event.tenantId);
      runAsTenant(event.tenantId, () => this.prepare(event.tenantId)).catch((error: Error) =>
        this.logger.warn({ msg: 'planner training after a publish failed', error: error.message }),
      );
    }, RETRAIN_DELAY_MS);
    timer.unref();
    this.retrain.set(event.tenantId, timer);
  }

  onModuleDestroy(): void {
    for (const timer of this.retrain.values()) clearTimeout(timer);
    this.retrain.clear();
    // Background classifier training runs on this event loop: it would keep a closing process busy.
    this.fallback.abortTraining();
  }

  private readonly logger = new Logger(PlannerService.name);
  private readonly validator = new PlanValidator();
  private readonly fallback = new FallbackPlanner();
  private readonly prompts = new PromptBuilder();

  constructor(
    private readonly tools: ToolRegistry,
    private readonly knowledge: PlanningKnowledge,
    private readonly llm: LlmClient,
    private readonly options: PlannerOptions,
    @Optional() private readonly documents?: DocumentMatcher,
  ) {}

  /**
   * Passages of the tenant's documents matching the question, for the deterministic planner's document
   * signal; null when there is no document tool or store, or the store failed or was slow (planning goes on).
   */
  private async documentPassages(
    tenantId: string,
    query: string,
    tools: ToolListing[],
  ): Promise<string[] | null> {
    if (!this.documents || !tools.some((tool) => isDocumentTool(tool))) return null;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), DOCUMENT_MATCH_TIMEOUT_MS);
    });
    try {
      return await Promise.race([this.documents.passages(tenantId, query, DOCUMENT_MATCH_PASSAGES), timeout]);
    } catch (error) {
      this.logger.warn({ msg: 'document signal unavailable', error: (error as Error).message });
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** What a plan for this tenant reads: its published knowledge and its tools. */
  private async knowledgeOf(tenantId: string) {
    const [catalogAsset, mappingsAsset, promptAsset, published] = await Promise.all([
      this.knowledge.catalog(tenantId),
      this.knowledge.mappings(tenantId),
      this.knowledge.systemPrompt(tenantId),
      this.knowledge.resolvers(tenantId),
    ]);
    const { rules: aliases, versions: resolvers } = published;
    const listing = this.tools.list(tenantId);
    const usable = listing.filter((tool) => tool.available);
    // Each tool is planned over the catalog of the source it reads (docs/notes/sources.md).
    const { index: catalog, sources } = await loadSourceCatalogs(
      this.knowledge,
      tenantId,
      catalogAsset,
      listing,
    );
    const versions = {
      mappings: mappingsAsset ? { name: mappingsAsset.name, version: mappingsAsset.version } : null,
      catalogs: sources.map((s) => ({
        source: s.source,
        catalog: s.catalog ? { name: s.catalog.name, version: s.catalog.version } : null,
      })),
      resolvers,
    };
    const version = knowledgeVersion({ tools: usable, ...versions });
    return {
      catalogAsset,
      mappingsAsset,
      promptAsset,
      aliases,
      listing,
      usable,
      catalog,
      sources,
      knowledge: { version, ...versions },
    };
  }

  /** The knowledge version a plan for this tenant would be made with now (see knowledgeVersion). */
  async knowledgeVersion(tenantId: string): Promise<string> {
    return (await this.knowledgeOf(tenantId)).knowledge.version;
  }

  /**
   * Trains the deterministic planner on the tenant's current knowledge and tools, in the background (called
   * when the tenant publishes knowledge or tools, and by evaluation); resolves when it is ready.
   */
  async prepare(tenantId: string): Promise<void> {
    const { mappingsAsset, usable, catalog, knowledge } = await this.knowledgeOf(tenantId);
    await this.fallback.prepare({
      query: '',
      tools: usable,
      catalog,
      mappings: mappingsAsset?.content ?? null,
      now: new Date(),
      maxLimit: this.options.maxLimit,
      knowledgeKey: knowledge.version,
    });
  }

  async plan(request: PlanRequest): Promise<PlanOutcome> {
    const started = performance.now();
    const now = request.now ?? new Date();
    const {
      catalogAsset,
      mappingsAsset,
      promptAsset,
      aliases,
      listing,
      usable,
      catalog,
      sources,
      knowledge,
    } = await this.knowledgeOf(request.tenantId);
    const sourceWarnings = sources
      .filter((s) => !s.catalog && s.source !== INTERNAL_SOURCE_REF && s.tools.length)
      .map(
        (s) =>
          `source "${s.source}" has no published catalog (sync one: POST /api/assets/catalog/sync {"source": "${s.source}"}); ${s.tools.join(', ')} planned from the tool schemas only`,
      );
    const mappings = mappingsAsset?.content ?? null;
    const context = {
      tools: listing,
      catalog,
      maxLimit: this.options.maxLimit,
      maxSteps: this.options.maxSteps,
    };
    const documents = await this.documentPassages(request.tenantId, request.query, usable);
    const deterministic = this.fallback.plan({
      query: request.query,
      tools: usable,
      catalog,
      mappings,
      now,
      maxLimit: this.options.maxLimit,
      documents,
      aliases,
      knowledgeKey: knowledge.version,
      explain: request.explain,
    });

    const rejected: RejectedPlanAttempt[] = [];
    let llmMs = 0;
    let prompt: PlanOutcome['prompt'] = null;
    let accepted: { raw: string; plan: Plan | null } | null = null;
    const explain = (source: PlannerSource, validation: PlanValidation) =>
      request.explain && deterministic.trace
        ? {
            explain: explainPlan({
              query: request.query,
              tools: usable,
              trace: deterministic.trace,
              mappings,
              knowledge,
              planner: this.plannerChoice(source, request, rejected),
              plan: validation.plan,
              rawPlan: source === 'fallback' ? deterministic.plan : (accepted?.plan ?? null),
              llm: prompt
                ? this.llmExplanation(prompt, promptAsset, usable, rejected, source, accepted)
                : null,
            }),
          }
        : {};
    const finish = (
      source: PlannerSource,
      validation: PlanValidation,
      model: string | null,
      extraWarnings: string[] = [],
    ): PlanOutcome => ({
      ...explain(source, validation),
      knowledge_version: knowledge.version,
      plan: validation.plan,
      valid: validation.valid,
      planner: source,
      model,
      errors: validation.errors,
      warnings: [
        ...knowledgeWarnings(catalogAsset, mappingsAsset),
        ...sourceWarnings,
        ...extraWarnings,
        ...validation.warnings,
      ],
      rejected,
      prompt,
      asset_versions: this.assetVersions(
        catalogAsset,
        mappingsAsset,
        promptAsset,
        validation,
        listing,
        sources,
      ),
      timings: { planning_ms: Math.round(performance.now() - started), llm_ms: llmMs },
    });

    if (this.llm.configured && request.useLlm !== false) {
      const built = this.prompts.build({
        query: request.query,
        tools: usable,
        catalog,
        sources,
        mappings,
        systemPrompt: promptAsset?.content.template ?? null,
        tokenBudget: this.options.tokenBudget,
        now,
        toolScores: deterministic.scores,
      });
      prompt = built.report;
      const messages: LlmMessage[] = [...built.messages];
      for (const source of LLM_ATTEMPTS) {
        let response: LlmChatResponse;
        try {
          response = await this.llm.chat({
            messages,
            model: request.model,
            responseFormat: {
              type: 'json_schema',
              name: 'ops_plan',
              schema: planJsonSchema(usable.map((t) => t.name)),
            },
            signal: request.signal,
          });
        } catch (error) {
          const message = error instanceof LlmException ? error.message : (error as Error).message;
          this.logger.warn({
            msg: 'LLM planning failed, using the fallback planner',
            source,
            error: message,
          });
          rejected.push({ source, reason: 'llm_error', message, errors: [] });
          break;
        }
        llmMs += response.latencyMs;
        const raw = response.content ?? response.toolCalls[0]?.arguments ?? '';
        let parsed: unknown;
        try {
          parsed = extractJson(raw);
        } catch (error) {
          const issue: PlanIssue = {
            code: 'MALFORMED_PLAN',
            step_id: null,
            path: '/',
            message: `The output is not valid JSON: ${(error as Error).message}`,
          };
          rejected.push({ source, reason: 'malformed_output', message: issue.message, errors: [issue], raw });
          messages.push(
            { role: 'assistant', content: raw },
            { role: 'user', content: this.repairMessage([issue]) },
          );
          continue;
        }
        const validation = this.validator.validate(parsed, context);
        if (validation.valid) {
          if (request.explain) accepted = { raw, plan: parsed as Plan };
          return finish(source, validation, response.model);
        }
        rejected.push({
          source,
          reason: 'invalid_plan',
          message: `The plan was rejected: ${validation.errors.map((e) => e.message).join(' ')}`,
          errors: validation.errors,
          raw,
        });
        messages.push(
          { role: 'assistant', content: raw },
          { role: 'user', content: this.repairMessage(validation.errors) },
        );
      }
    }

    const validation = this.validator.validate(deterministic.plan, context);
    return finish('fallback', validation, null, deterministic.warnings);
  }

  /** Which planner made the plan and why (for explain). */
  private plannerChoice(
    source: PlannerSource,
    request: PlanRequest,
    rejected: RejectedPlanAttempt[],
  ): PlannerChoice {
    if (source === 'llm')
      return { source, reason: 'llm_plan_valid', message: "the LLM's plan passed validation" };
    if (source === 'llm_repair')
      return {
        source,
        reason: 'llm_plan_repaired',
        message: "the LLM's first plan was rejected; its repaired plan passed validation",
      };
    if (!this.llm.configured)
      return {
        source,
        reason: 'llm_not_configured',
        message: 'no LLM is configured (LLM_BASE_URL): the deterministic planner plans',
      };
    if (request.useLlm === false)
      return {
        source,
        reason: 'llm_not_requested',
        message: 'the request asked for no LLM (use_llm: false)',
      };
    const failed = rejected.find((r) => r.reason === 'llm_error');
    return failed
      ? { source, reason: 'llm_failed', message: `the LLM call failed: ${failed.message}` }
      : {
          source,
          reason: 'llm_plan_rejected',
          message: "the LLM's plan and its repair were both rejected: the deterministic planner plans",
        };
  }

  /** What the LLM was sent and returned, attempt by attempt (for explain). */
  private llmExplanation(
    report: NonNullable<PlanOutcome['prompt']>,
    promptAsset: { name: string; version: number } | null,
    tools: ToolListing[],
    rejected: RejectedPlanAttempt[],
    source: PlannerSource,
    accepted: { raw: string } | null,
  ): LlmPlanExplanation {
    const attempts: LlmPlanExplanation['attempts'] = rejected.map((attempt) => ({
      source: attempt.source,
      outcome: attempt.reason,
      message: attempt.message,
      returned: attempt.raw ?? null,
      errors: attempt.errors,
    }));
    if (source !== 'fallback' && accepted)
      attempts.push({
        source,
        outcome: 'valid',
        message: 'the plan passed validation',
        returned: accepted.raw,
        errors: [],
      });
    return {
      prompt: promptAsset
        ? { source: 'asset', name: promptAsset.name, version: String(promptAsset.version) }
        : { source: 'builtin', name: 'default', version: BUILTIN_PROMPT_VERSION },
      tools_sent: tools.map((tool) => tool.name),
      estimated_tokens: report.estimated_tokens,
      attempts,
    };
  }

  private repairMessage(errors: PlanIssue[]): string {
    return `Your plan was rejected and nothing was run. Fix these problems and return the corrected plan JSON only:\n${JSON.stringify(errors, null, 2)}`;
  }

  private assetVersions(
    catalog: { name: string; version: number } | null,
    mappings: { name: string; version: number } | null,
    prompt: { name: string; version: number } | null,
    validation: PlanValidation,
    listing: ToolListing[],
    sources: SourceCatalog[],
  ): PlanAssetVersions {
    const used = new Set(validation.plan?.steps.map((s) => s.tool_type) ?? []);
    const read = new Set(validation.plan?.steps.map((s) => s.source).filter(Boolean) ?? []);
    return {
      prompt: prompt ? { name: prompt.name, version: prompt.version } : null,
      catalog: catalog ? { name: catalog.name, version: catalog.version } : null,
      mappings: mappings ? { name: mappings.name, version: mappings.version } : null,
      tools: listing
        .filter((tool) => used.has(tool.name))
        .map((tool) => ({ name: tool.name, source: tool.source, version: tool.version ?? null })),
      catalogs: sources
        .filter((s) => read.has(s.source))
        .map((s) => ({
          source: s.source,
          catalog: s.catalog ? { name: s.catalog.name, version: s.catalog.version } : null,
        })),
    };
  }
}
