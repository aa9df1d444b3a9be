import { hintTexts, type MappingContent } from '@app/asset-registry';
import type { ToolDefinition } from '@app/tools';
import type { FallbackTrace } from '../fallback/fallback-planner';
import { HINT_KEYWORD } from '../fallback/hint-keyword';
import type {
  AssetVersionRef,
  LlmPlanExplanation,
  Plan,
  PlanExplanation,
  PlanKnowledge,
  PlannerChoice,
  PlannerSource,
} from '../plan/plan.types';
import { explainParameters } from './parameter-sources';
import { explainTools } from './tool-evidence';

export interface ExplainPlanInput {
  query: string;
  /** The tools planned over. */
  tools: ToolDefinition[];
  /** What the deterministic planner computed (FallbackPlanner.plan with `explain: true`). */
  trace: FallbackTrace;
  /** The tenant's mapping content as published (its labelled questions), null when none. */
  mappings: MappingContent | null;
  knowledge: {
    version: string;
    mappings: AssetVersionRef | null;
    catalogs: Array<{ source: string; catalog: AssetVersionRef | null }>;
    resolvers: AssetVersionRef[];
  };
  planner: PlannerChoice;
  /** The plan as it runs (validated) and as the chosen planner made it (before validation). */
  plan: Plan | null;
  rawPlan: Plan | null;
  llm: LlmPlanExplanation | null;
}

/**
 * Why a plan was chosen, from what the planner computed: the planner and why, the knowledge version and
 * what the question touched, per tool its score, threshold, evidence and decision, each parameter's source,
 * and the LLM's attempts. Built only when asked (`explain: true`); the normal path computes none of it.
 */
export function explainPlan(input: ExplainPlanInput): PlanExplanation {
  const { trace, tools } = input;
  const { analysis } = trace;
  const knowledge: PlanKnowledge = {
    version: input.knowledge.version,
    tools: tools
      .map((tool) => ({
        name: tool.name,
        source_ref: tool.source_ref ?? null,
        version: tool.version ?? null,
        hints: {
          examples: hintTexts(tool.planning_hints?.examples ?? undefined).length,
          keywords: hintTexts(tool.planning_hints?.keywords ?? undefined).length,
          not_for: hintTexts(tool.planning_hints?.not_for ?? undefined).length,
        },
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    mappings: input.knowledge.mappings
      ? { ...input.knowledge.mappings, labelled_examples: input.mappings?.examples?.length ?? 0 }
      : null,
    catalogs: input.knowledge.catalogs,
    resolvers: input.knowledge.resolvers,
    touched: {
      keywords: analysis.matchedMappings.map((m) => ({
        keyword: m.keyword,
        value: String(m.value),
        kind: m.kind,
        hint: m.description === HINT_KEYWORD,
      })),
      facts: analysis.facts.map((f) => ({ field: f.field, value: f.value, table: f.table })),
      items: [...analysis.identifiers, ...analysis.tags],
      topics: [...analysis.itemTopics, ...analysis.textTopics],
    },
  };
  const source: PlannerSource = input.planner.source;
  return {
    planner: input.planner,
    knowledge,
    classifier: trace.classifier,
    clauses: trace.clauses,
    thresholds: {
      tool: trace.thresholds.tool,
      evidence: trace.thresholds.evidence,
      clause: trace.thresholds.clause,
      min_examples: trace.minExamples,
    },
    tools: explainTools({ query: input.query, tools, trace, mappings: input.mappings }),
    fallback_choice: trace.chosen,
    parameters: explainParameters(
      { plan: input.plan, raw: input.rawPlan, planner: source, trace: source === 'fallback' ? trace : null },
      input.query,
    ),
    llm: input.llm,
  };
}
