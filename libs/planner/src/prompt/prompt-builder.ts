import type { CatalogTable, KeywordMapping, MappingContent } from '@app/asset-registry';
import { INTERNAL_SOURCE_REF } from '@app/asset-registry';
import type { ToolDefinition } from '@app/tools';
import type { LlmMessage } from '../llm/llm-client';
import { CatalogIndex } from '../knowledge/catalog-index';
import {
  containsTerm,
  contentTerms,
  estimateTokens,
  normalizeText,
  queryHasTerm,
} from '../knowledge/text-match.util';
import type { SourceCatalog } from '../knowledge/source-catalogs';
import type { PromptReport, PromptSourceReport } from '../plan/plan.types';
import { schemaProperties } from '../plan/schema-introspection.util';
import { summarizeCatalog } from './catalog-summary';

export const DEFAULT_PLANNER_SYSTEM_PROMPT = `You are a query planner for the tools listed below.
Understand the user's question about the data and documents those tools read, choose the tools that
answer it, and define each tool's parameters.
Rules:
- Use only the tools listed, with parameters that follow each tool's input schema exactly.
- Each tool reads one data source (the source it is listed under). Its filter fields and values must
  come from that source's catalog (columns and their listed values), and its step names that source in
  "source". Use the keyword mappings to translate the user's words (e.g. Korean terms) into catalog values.
- A step may use an earlier step's output with {"$ref": "<step id>.data.<path>"}, e.g.
  {"$ref": "s1.data.items[*].id"} (every item's id), and must then list that step in depends_on.
  Independent steps run in parallel.
- Time ranges are ISO-8601 UTC timestamps.
- If the question needs no tool (greetings, questions about you), return an empty steps array.
Answer with one JSON object only: {"intent": string, "steps": [{"id", "tool_type", "source"?, "parameters", "depends_on"?, "purpose"?}]}.`;

export interface PromptBuildInput {
  query: string;
  tools: ToolDefinition[];
  /** Every source's catalog (CatalogIndex.forSources), or the one catalog of the internal source. */
  catalog: CatalogIndex;
  /** The sources the tools read with their catalogs; absent: the internal source with `catalog`. */
  sources?: SourceCatalog[];
  mappings: MappingContent | null;
  systemPrompt: string | null;
  tokenBudget: number;
  now: Date;
  /** How relevant each tool is to the question (from the deterministic planner's scoring). */
  toolScores: Record<string, number>;
}

export interface BuiltPrompt {
  messages: LlmMessage[];
  report: PromptReport;
}

interface Section {
  kind: 'tool' | 'mapping';
  key: string;
  text: string;
  score: number;
}

/** At most this share of the budget left after the header is kept for tool schemas and mappings. */
const TOOLS_AND_MAPPINGS_SHARE = 0.5;

function renderMapping(mapping: KeywordMapping): string {
  return `"${mapping.keyword}" -> ${mapping.kind}${mapping.field ? ` ${mapping.field}` : ''} = ${mapping.value}`;
}

function sourceHeading(source: SourceCatalog, named = true): string {
  const catalog = !named
    ? []
    : [
        source.catalog
          ? `catalog "${source.catalog.name}" v${source.catalog.version}`
          : 'no catalog published',
      ];
  const parts = [...catalog, ...(source.tools.length ? [`tools: ${source.tools.join(', ')}`] : [])];
  return `Source "${source.source}"${parts.length ? ` (${parts.join('; ')})` : ''}:`;
}

/**
 * Builds the planner prompt from the tools, the catalog of each data source they read and the mappings,
 * within a token budget. The tools are listed under the source each reads; every source's catalog is
 * summarised (summarizeCatalog: most relevant tables in full, then compact, then by name only) within
 * its share of the budget; tool schemas and mappings are ranked by relevance. What does not fit is left
 * out and reported. Tool names and descriptions are always included so the model knows every tool exists.
 */
export class PromptBuilder {
  build(input: PromptBuildInput): BuiltPrompt {
    const text = normalizeText(input.query);
    const terms = contentTerms(input.query);
    const sources: SourceCatalog[] = input.sources ?? [
      {
        source: INTERNAL_SOURCE_REF,
        catalog: input.catalog.content ? { name: '', version: 0, content: input.catalog.content } : null,
        tools: input.tools.filter((t) => t.source_ref === INTERNAL_SOURCE_REF).map((t) => t.name),
      },
    ];
    const named = input.sources !== undefined;
    const boundTables = new Set<string>();
    for (const tool of input.tools) {
      if ((input.toolScores[tool.name] ?? 0) <= 0) continue;
      const source = input.catalog.sourceOf(tool.name);
      for (const property of schemaProperties(tool.input_schema)) {
        if (property.catalogTable) boundTables.add(`${source}:${property.catalogTable.toLowerCase()}`);
        if (property.catalogColumn)
          boundTables.add(`${source}:${property.catalogColumn.split('.')[0].toLowerCase()}`);
      }
    }
    const matchedMappings = (input.mappings?.mappings ?? []).filter((m) =>
      containsTerm(text, normalizeText(m.keyword)),
    );

    const sections: Section[] = [];
    for (const tool of input.tools) {
      sections.push({
        kind: 'tool',
        key: tool.name,
        text: `schema ${tool.name}: ${JSON.stringify(tool.input_schema)}`,
        score: 10 + (input.toolScores[tool.name] ?? 0) * 10,
      });
    }
    (input.mappings?.mappings ?? []).forEach((mapping, index) => {
      sections.push({
        kind: 'mapping',
        key: String(index),
        text: renderMapping(mapping),
        score: matchedMappings.includes(mapping) ? 15 : 0.5,
      });
    });

    const system = input.systemPrompt?.trim() || DEFAULT_PLANNER_SYSTEM_PROMPT;
    const header = `Current time (UTC): ${input.now.toISOString()}\nQuestion: ${input.query}\n\nAvailable tools (tool_type must be one of these names), under the data source each reads:\n${this.toolList(input.tools)}\n`;
    const catalogsTitle =
      "Data sources and their catalogs (a tool's filter fields and values come from the catalog of its source):";
    let used =
      estimateTokens(system) +
      estimateTokens(header) +
      estimateTokens(catalogsTitle) +
      sources.reduce((sum, s) => sum + estimateTokens(sourceHeading(s, named)) + 1, 0) +
      48;

    // Tool schemas and mappings are guaranteed a share; the catalogs get the rest of the budget.
    const ranked = [...sections].sort((a, b) => b.score - a.score || a.text.length - b.text.length);
    const sectionsCost = ranked.reduce((sum, s) => sum + estimateTokens(s.text) + 1, 0);
    const remaining = Math.max(0, input.tokenBudget - used);
    const reserved = Math.min(sectionsCost, Math.floor(remaining * TOOLS_AND_MAPPINGS_SHARE));
    let catalogBudget = Math.max(0, remaining - reserved);

    // Sources whose tools the question points at come first; each gets an equal share of what is left.
    const relevance = (source: SourceCatalog) =>
      Math.max(0, ...source.tools.map((name) => input.toolScores[name] ?? 0));
    const order = [...sources].sort(
      (a, b) =>
        relevance(b) - relevance(a) ||
        Number(b.source === INTERNAL_SOURCE_REF) - Number(a.source === INTERNAL_SOURCE_REF) ||
        a.source.localeCompare(b.source),
    );
    const summaries = new Map<string, ReturnType<typeof summarizeCatalog>>();
    order.forEach((source, i) => {
      const tables = source.catalog?.content.tables ?? [];
      const scored = tables
        .map((table, at) => ({
          table,
          at,
          score: this.tableScore(table, text, terms, matchedMappings, boundTables, source.source),
        }))
        .sort((a, b) => b.score - a.score || a.at - b.at);
      const share = Math.floor(catalogBudget / (order.length - i));
      const summary = summarizeCatalog(source.catalog?.content ?? null, {
        maxTokens: share,
        order: scored.map((s) => s.table.name),
      });
      summaries.set(source.source, summary);
      const cost = summary.text ? estimateTokens(summary.text) + 1 : 0;
      catalogBudget -= cost;
      used += cost;
    });

    const included = new Set<Section>();
    for (const section of ranked) {
      const cost = estimateTokens(section.text) + 1;
      if (used + cost > input.tokenBudget) continue;
      included.add(section);
      used += cost;
    }

    const pick = (kind: Section['kind']) => sections.filter((s) => s.kind === kind && included.has(s));
    const tableKey = (source: string, table: string) =>
      source === INTERNAL_SOURCE_REF ? table : `${source}.${table}`;
    const catalogText = sources
      .map((source) => {
        const summary = summaries.get(source.source)!;
        const body = source.catalog
          ? summary.text || '(no room in the budget)'
          : named
            ? '(no catalog published for this source)'
            : '(no catalog published)';
        return `${sourceHeading(source, named)}\n${body}`;
      })
      .join('\n');
    const user = [
      header,
      `Tool input schemas:\n${
        pick('tool')
          .map((s) => s.text)
          .join('\n') || '(none fit the budget)'
      }`,
      `${catalogsTitle}\n${catalogText || '(no catalog published)'}`,
      `Keyword mappings:\n${
        pick('mapping')
          .map((s) => s.text)
          .join('\n') || '(none)'
      }`,
      'Return the plan JSON.',
    ].join('\n\n');
    const omitted = (kind: Section['kind']) => sections.filter((s) => s.kind === kind && !included.has(s));
    const sourceReports: PromptSourceReport[] = sources.map((source) => {
      const summary = summaries.get(source.source)!;
      return {
        source: source.source,
        catalog:
          named && source.catalog ? { name: source.catalog.name, version: source.catalog.version } : null,
        tools: source.tools,
        tables: source.catalog?.content.tables.length ?? 0,
        included_tables: summary.tables,
        compact_tables: summary.compact,
        estimated_tokens: summary.estimated_tokens,
      };
    });
    return {
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      report: {
        estimated_tokens: estimateTokens(system) + estimateTokens(user),
        token_budget: input.tokenBudget,
        included_tables: order.flatMap((s) =>
          summaries.get(s.source)!.tables.map((t) => tableKey(s.source, t)),
        ),
        omitted_tables: order.flatMap((s) =>
          summaries.get(s.source)!.omitted.map((t) => tableKey(s.source, t)),
        ),
        omitted_tool_schemas: omitted('tool').map((s) => s.key),
        omitted_mappings: omitted('mapping').length,
        sources: sourceReports,
      },
    };
  }

  /** The tools under the source each reads: `internal` first, then by name, then those reading none. */
  private toolList(tools: ToolDefinition[]): string {
    const groups = new Map<string, ToolDefinition[]>();
    for (const tool of tools) {
      const key = tool.source_ref ?? '';
      groups.set(key, [...(groups.get(key) ?? []), tool]);
    }
    const keys = [...groups.keys()].sort(
      (a, b) =>
        Number(a === '') - Number(b === '') ||
        Number(b === INTERNAL_SOURCE_REF) - Number(a === INTERNAL_SOURCE_REF) ||
        a.localeCompare(b),
    );
    return keys
      .map((key) => {
        const heading = key ? `Source "${key}":` : 'No data source:';
        const lines = groups.get(key)!.map((tool) => `- ${tool.name}: ${tool.description}`);
        return `${heading}\n${lines.join('\n')}`;
      })
      .join('\n');
  }

  private tableScore(
    table: CatalogTable,
    text: string,
    terms: Set<string>,
    mappings: KeywordMapping[],
    bound: Set<string>,
    source: string,
  ): number {
    let score = bound.has(`${source}:${table.name.toLowerCase()}`) ? 5 : 0;
    const tableTerms = contentTerms(`${table.name.replace(/_/g, ' ')} ${table.description ?? ''}`);
    for (const column of table.columns) {
      for (const term of contentTerms(
        `${column.name.replace(/_/g, ' ')} ${(column.aliases ?? []).join(' ')}`,
      ))
        tableTerms.add(term);
      for (const value of column.enum_values ?? []) {
        if (containsTerm(text, value.toLowerCase())) score += 3;
        if (mappings.some((m) => m.value === value && (!m.field || m.field === column.name))) score += 3;
      }
    }
    for (const term of tableTerms) if (queryHasTerm(text, terms, term)) score += 1;
    return score;
  }
}
