import type { KeywordMapping, MappingContent } from '@app/asset-registry';
import type { ToolDefinition } from '@app/tools';
import { CatalogIndex } from '../knowledge/catalog-index';
import {
  containsTerm,
  contentTerms,
  isKorean,
  normalizeText,
  queryHasTerm,
} from '../knowledge/text-match.util';
import type { Plan, PlanStep } from '../plan/plan.types';
import {
  allowedKeys,
  findIdPath,
  findProperty,
  PropertyInfo,
  schemaProperties,
} from '../plan/schema-introspection.util';
import { extractSignals, QuerySignals } from './query-signals.util';
import { autoBucket } from './time-range.util';

export interface FallbackPlannerInput {
  query: string;
  tools: ToolDefinition[];
  catalog: CatalogIndex;
  mappings: MappingContent | null;
  now: Date;
  maxLimit: number;
}

export interface FallbackPlanResult {
  plan: Plan;
  warnings: string[];
  /** Per tool: how strongly the question points at it (for explanations and evaluation). */
  scores: Record<string, number>;
}

/** A value the question names: a catalog value or a mapped keyword, with the field it belongs to. */
interface Fact {
  field: string;
  value: string;
  table: string | null;
}

const NAME_COLUMNS = ['ci_name', 'name', 'hostname', 'host'];
/** Filter keys that take exact item names, preferred over the catalog's name column when a schema has one. */
const NAME_FILTER_KEYS = ['names', 'ci_names'];
const MIN_TOOL_SCORE = 1;
const INTENT_BY_TOOL: Record<string, string> = {
  ci_lookup: 'lookup_ci',
  metric_query: 'query_metrics',
  history_query: 'query_history',
  graph_analysis: 'analyze_graph',
  document_search: 'search_documents',
};

/**
 * Plans without a language model: picks tools from their descriptions, the catalog values and the
 * keyword mappings the question mentions, and fills each tool's parameters from its input schema.
 * Deterministic for a given `now`.
 */
export class FallbackPlanner {
  plan(input: FallbackPlannerInput): FallbackPlanResult {
    const text = normalizeText(input.query);
    const signals = extractSignals(input.query, input.now);
    const warnings: string[] = [];
    const mappings = [...(input.mappings?.mappings ?? [])].sort(
      (a, b) => b.keyword.length - a.keyword.length,
    );
    // Item names ("prod-payment-db") are names, not a filter on prod databases nor words to route by.
    const factText = signals.identifiers.reduce((rest, id) => rest.split(id).join(' '), text);
    const terms = contentTerms(factText);
    const matchedMappings = mappings.filter((m) => containsTerm(factText, normalizeText(m.keyword)));
    const facts = this.facts(factText, input.catalog, matchedMappings);
    const aggregation =
      signals.aggregation ??
      (matchedMappings.find((m) => m.kind === 'aggregation')?.value as QuerySignals['aggregation']) ??
      null;
    const identifiers = signals.identifiers.filter(
      (id) => !/^(top|bottom)-/.test(id) && !facts.some((f) => f.value.toLowerCase() === id),
    );

    const idf = this.inverseDocumentFrequency(input.tools);
    const scores: Record<string, number> = {};
    const weak: Record<string, number> = {};
    for (const tool of input.tools) {
      let strong = 0;
      for (const term of this.toolTerms(tool))
        if (queryHasTerm(factText, terms, term)) strong += idf.get(term) ?? 0;
      if (matchedMappings.some((m) => m.kind === 'tool' && m.value === tool.name)) strong += 3;
      weak[tool.name] = 0;
      for (const property of schemaProperties(tool.input_schema)) {
        if (property.catalogColumn && this.columnFacts(facts, property.catalogColumn).length) strong += 3;
        else if (property.enumValues && this.enumChoice(text, facts, property)) strong += 2;
        else if (property.catalogTable)
          weak[tool.name] += this.tableFacts(facts, property.catalogTable, input.catalog).length;
      }
      scores[tool.name] = Math.round(strong * 100) / 100;
    }

    // A question that names documents (runbook, 매뉴얼) asks for documents, whatever they are about.
    const routed = new Set(matchedMappings.filter((m) => m.kind === 'tool').map((m) => m.value));
    const textSearch = input.tools.filter(
      (tool) =>
        routed.has(tool.name) && findProperty(tool.input_schema, ['query', 'question', 'text'])?.required,
    );
    let chosen = textSearch.length
      ? textSearch
      : input.tools.filter((tool) => scores[tool.name] >= MIN_TOOL_SCORE);
    if (!chosen.length) {
      const byWeak = input.tools
        .filter((tool) => weak[tool.name] > 0)
        .sort((a, b) => weak[b.name] - weak[a.name] || this.requiredCount(a) - this.requiredCount(b));
      if (byWeak.length) chosen = [byWeak[0]];
    }
    const intentTool = [...chosen].sort((a, b) => scores[b.name] - scores[a.name])[0];
    const stage = (tool: ToolDefinition) =>
      findProperty(tool.input_schema, ['scope']) ? 0 : findProperty(tool.input_schema, ['keywords']) ? 1 : 2;
    chosen.sort((a, b) => stage(a) - stage(b) || scores[b.name] - scores[a.name]);

    const steps: PlanStep[] = [];
    const graphSources: Array<{ id: string; path: string }> = [];
    for (const tool of chosen) {
      const built = this.stepsFor(tool, { text, signals, facts, identifiers, aggregation, input, warnings });
      for (const parameters of built) {
        const id = `s${steps.length + 1}`;
        steps.push({ id, tool_type: tool.name, parameters });
        const idPath = findIdPath(tool.output_schema);
        if (idPath && findProperty(tool.input_schema, ['scope']) && identifiers.length)
          graphSources.push({ id, path: idPath });
      }
    }
    this.linkToGraph(steps, graphSources, input.tools);
    for (const step of steps) step.purpose = this.purpose(step);

    const primary = steps.length
      ? (steps.find((s) => s.tool_type === intentTool?.name) ?? steps[0]).tool_type
      : undefined;
    return {
      plan: {
        intent: primary ? (INTENT_BY_TOOL[primary] ?? `use_${primary}`) : 'general',
        steps,
        language: isKorean(input.query) ? 'ko' : 'en',
      },
      warnings,
      scores,
    };
  }

  private stepsFor(
    tool: ToolDefinition,
    ctx: {
      text: string;
      signals: QuerySignals;
      facts: Fact[];
      identifiers: string[];
      aggregation: string | null;
      input: FallbackPlannerInput;
      warnings: string[];
    },
  ): Array<Record<string, unknown>> {
    const { signals, facts, identifiers, input, warnings } = ctx;
    const params: Record<string, unknown> = {};
    const properties = schemaProperties(tool.input_schema);
    let perValue: { name: string; values: string[] } | null = null;
    let ordered = false;
    let namesFiltered = false;

    for (const property of properties) {
      const { name } = property;
      if (property.catalogColumn) {
        const values = [...new Set(this.columnFacts(facts, property.catalogColumn).map((f) => f.value))];
        if (values.length > 1 && property.type === 'string') perValue = { name, values };
        else if (values.length) params[name] = property.type === 'array' ? values : values[0];
      } else if (property.catalogTable) {
        const allowed = allowedKeys(property.schema);
        const filters = this.filtersFor(property.catalogTable, facts, input.catalog, allowed);
        const nameKey = allowed
          ? NAME_FILTER_KEYS.find((key) => allowed.has(key))
          : NAME_COLUMNS.find((c) => input.catalog.column(property.catalogTable!, c));
        if (nameKey && identifiers.length && !findProperty(tool.input_schema, ['scope', 'item', 'query'])) {
          filters[nameKey] = identifiers.length === 1 ? identifiers[0] : identifiers;
          namesFiltered = true;
        }
        if (Object.keys(filters).length) params[name] = filters;
      } else if (property.enumValues && ['aggregation', 'agg'].includes(name)) {
        if (ctx.aggregation && property.enumValues.includes(ctx.aggregation)) params[name] = ctx.aggregation;
      } else if (property.enumValues && name === 'order') {
        if (signals.order) params[name] = signals.order;
      } else if (property.enumValues && ['bucket', 'interval'].includes(name)) {
        const bucket =
          signals.bucket ?? (signals.trend && signals.timeRange ? autoBucket(signals.timeRange) : null);
        if (bucket && property.enumValues.includes(bucket)) params[name] = bucket;
      } else if (property.enumValues) {
        const value = this.enumChoice(ctx.text, facts, property);
        if (value) params[name] = value;
        else if (property.required && !property.hasDefault) params[name] = property.enumValues[0];
      } else if (['time_range', 'timerange', 'period'].includes(name)) {
        if (signals.timeRange) params[name] = { start: signals.timeRange.start, end: signals.timeRange.end };
        else if (property.required) {
          const hours = tool.name.includes('history') ? 24 * 7 : 24;
          params[name] = {
            start: new Date(input.now.getTime() - hours * 3_600_000).toISOString(),
            end: input.now.toISOString(),
          };
          warnings.push(
            `${tool.name}: no time range in the question, assumed the last ${hours === 24 ? '24 hours' : '7 days'}.`,
          );
        }
      } else if (['limit', 'top_n', 'top_k', 'size'].includes(name)) {
        const wanted = signals.limit ?? (name === 'top_n' && signals.superlative ? 1 : null);
        const orderedByValue = name === 'top_n' && (signals.order !== null || signals.superlative);
        if (wanted !== null)
          params[name] = Math.min(wanted, property.maximum ?? input.maxLimit, input.maxLimit);
        else if (orderedByValue) params[name] = Math.min(10, property.maximum ?? 10);
        if (name === 'top_n' && params[name] !== undefined) ordered = true;
      } else if (name === 'depth') {
        if (signals.depth !== null) params[name] = Math.min(signals.depth, property.maximum ?? signals.depth);
      } else if (name === 'keywords' && property.type === 'array') {
        if (identifiers.length && !namesFiltered) params[name] = identifiers;
      } else if (['scope', 'item', 'target', 'ci'].includes(name) && property.type === 'string') {
        if (identifiers.length) params[name] = identifiers[0];
      } else if (['query', 'question', 'text'].includes(name) && property.type === 'string') {
        params[name] = input.query.trim();
      }
    }
    if (ordered && !params.order && properties.some((p) => p.name === 'order')) params.order = 'desc';
    if (namesFiltered) delete params.keywords;

    const missing = properties.filter((p) => p.required && params[p.name] === undefined && !p.hasDefault);
    if (missing.length) {
      warnings.push(
        `${tool.name} was considered but the question does not give ${missing.map((p) => p.name).join(', ')}; it was left out.`,
      );
      return [];
    }
    if (perValue) return perValue.values.map((value) => ({ ...params, [perValue.name]: value }));
    return [params];
  }

  /** Steps that analyse items around a CI take the graph step's item ids instead of the name filter. */
  private linkToGraph(
    steps: PlanStep[],
    sources: Array<{ id: string; path: string }>,
    tools: ToolDefinition[],
  ): void {
    const source = sources[0];
    if (!source) return;
    for (const step of steps) {
      if (step.id === source.id) continue;
      const tool = tools.find((t) => t.name === step.tool_type);
      const idsProperty = findProperty(tool?.input_schema, ['ci_ids', 'item_ids', 'ids']);
      if (!idsProperty || step.tool_type === 'ci_lookup') continue;
      step.parameters[idsProperty.name] = { $ref: source.id, path: source.path };
      for (const key of ['item', 'scope']) delete step.parameters[key];
      for (const property of schemaProperties(tool?.input_schema).filter((p) => p.catalogTable)) {
        const filters = step.parameters[property.name] as Record<string, unknown> | undefined;
        if (!filters) continue;
        for (const key of [...NAME_COLUMNS, ...NAME_FILTER_KEYS]) delete filters[key];
        if (!Object.keys(filters).length) delete step.parameters[property.name];
      }
      step.depends_on = [source.id];
    }
  }

  private facts(text: string, catalog: CatalogIndex, mappings: KeywordMapping[]): Fact[] {
    const facts: Fact[] = [];
    const add = (fact: Fact) => {
      if (!facts.some((f) => f.field === fact.field && f.value === fact.value)) facts.push(fact);
    };
    for (const mapping of mappings) {
      if (mapping.kind === 'tool' || mapping.kind === 'aggregation') continue;
      const located = catalog
        .allEnumValues()
        .find((hit) => hit.value === mapping.value && (!mapping.field || hit.column === mapping.field));
      if (located) add({ field: located.column, value: located.value, table: located.table });
      else if (mapping.field) add({ field: mapping.field, value: mapping.value, table: null });
      else if (mapping.kind === 'metric') add({ field: 'metric_name', value: mapping.value, table: null });
    }
    for (const hit of catalog.allEnumValues()) {
      if (hit.value.length >= 2 && containsTerm(text, hit.value.toLowerCase()))
        add({ field: hit.column, value: hit.value, table: hit.table });
    }
    return facts;
  }

  private columnFacts(facts: Fact[], ref: string): Fact[] {
    const [table, column] = ref.split('.');
    return facts.filter((f) => f.field === column && (f.table === null || f.table === table));
  }

  private tableFacts(facts: Fact[], table: string, catalog: CatalogIndex): Fact[] {
    return facts.filter((f) => (f.table ? f.table === table : Boolean(catalog.column(table, f.field))));
  }

  private filtersFor(
    table: string,
    facts: Fact[],
    catalog: CatalogIndex,
    allowed: Set<string> | null,
  ): Record<string, unknown> {
    const values = new Map<string, string[]>();
    for (const fact of this.tableFacts(facts, table, catalog)) {
      if (allowed && !allowed.has(fact.field)) continue;
      values.set(fact.field, [...(values.get(fact.field) ?? []), fact.value]);
    }
    return Object.fromEntries(
      [...values].map(([field, list]) => [field, list.length === 1 ? list[0] : list]),
    );
  }

  /**
   * The enum value the question names for a property. A property with a default takes only a value
   * stated for it explicitly (a mapping or catalog value for that field), so defaults are not
   * overridden by words that merely appear in the question.
   */
  private enumChoice(text: string, facts: Fact[], property: PropertyInfo): string | null {
    if (!property.hasDefault || property.required) return this.enumFact(text, facts, property);
    const values = property.enumValues ?? [];
    return facts.find((f) => f.field === property.name && values.includes(f.value))?.value ?? null;
  }

  private enumFact(text: string, facts: Fact[], property: PropertyInfo): string | null {
    const values = property.enumValues ?? [];
    const fact = facts.find((f) => f.field === property.name && values.includes(f.value));
    if (fact) return fact.value;
    return values.find((value) => value.length >= 3 && containsTerm(text, value.toLowerCase())) ?? null;
  }

  private toolTerms(tool: ToolDefinition): Set<string> {
    // Names of other tools and values (history_query, cpu_usage) in a description say nothing about this tool.
    const description = tool.description.replace(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, ' ');
    return contentTerms(`${tool.name.replace(/_/g, ' ')} ${description}`);
  }

  private inverseDocumentFrequency(tools: ToolDefinition[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const tool of tools)
      for (const term of this.toolTerms(tool)) counts.set(term, (counts.get(term) ?? 0) + 1);
    const idf = new Map<string, number>();
    for (const [term, count] of counts) idf.set(term, Math.log(1 + tools.length / count));
    return idf;
  }

  private requiredCount(tool: ToolDefinition): number {
    return schemaProperties(tool.input_schema).filter((p) => p.required).length;
  }

  private purpose(step: PlanStep): string {
    const shown = Object.entries(step.parameters)
      .filter(([key]) => key !== 'time_range')
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      .join(', ');
    return shown ? `${step.tool_type} with ${shown}` : step.tool_type;
  }
}
