import type { CatalogTable, KeywordMapping, MappingContent } from '@app/asset-registry';
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
import type { PromptReport } from '../plan/plan.types';
import { schemaProperties } from '../plan/schema-introspection.util';

export const DEFAULT_PLANNER_SYSTEM_PROMPT = `You are an infrastructure operations (CI/OPS) query planner.
Understand the user's question about infrastructure items, metrics, event history, relationships or
operational documents, choose the tools that answer it, and define each tool's parameters.
Rules:
- Use only the tools listed, with parameters that follow each tool's input schema exactly.
- Filter fields and values must come from the catalog (columns and their listed values); use the
  keyword mappings to translate the user's words (e.g. Korean terms) into catalog values.
- A step may use an earlier step's output with {"$ref": "<step id>.data.<path>"}, e.g.
  {"$ref": "s1.data.items[*].id"} (every item's id), and must then list that step in depends_on.
  Independent steps run in parallel.
- Time ranges are ISO-8601 UTC timestamps.
- If the question needs no tool (greetings, questions about you), return an empty steps array.
Answer with one JSON object only: {"intent": string, "steps": [{"id", "tool_type", "parameters", "depends_on"?, "purpose"?}]}.`;

export interface PromptBuildInput {
  query: string;
  tools: ToolDefinition[];
  catalog: CatalogIndex;
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
  kind: 'tool' | 'table' | 'mapping';
  key: string;
  text: string;
  score: number;
}

function renderTable(table: CatalogTable): string {
  const columns = table.columns.map((column) => {
    const values = column.enum_values?.length ? ` values: ${column.enum_values.join('|')}` : '';
    const description = column.description ? ` - ${column.description}` : '';
    return `  - ${column.name} (${column.type})${values}${description}`;
  });
  return `table ${table.name}${table.description ? ` - ${table.description}` : ''}\n${columns.join('\n')}`;
}

function renderMapping(mapping: KeywordMapping): string {
  return `"${mapping.keyword}" -> ${mapping.kind}${mapping.field ? ` ${mapping.field}` : ''} = ${mapping.value}`;
}

/**
 * Builds the planner prompt from the tools, catalog and mappings within a token budget. Everything
 * is ranked by relevance to the question; what does not fit is left out and reported. Tool names and
 * descriptions are always included so the model knows every tool exists.
 */
export class PromptBuilder {
  build(input: PromptBuildInput): BuiltPrompt {
    const text = normalizeText(input.query);
    const terms = contentTerms(input.query);
    const boundTables = new Set<string>();
    for (const tool of input.tools) {
      if ((input.toolScores[tool.name] ?? 0) <= 0) continue;
      for (const property of schemaProperties(tool.input_schema)) {
        if (property.catalogTable) boundTables.add(property.catalogTable.toLowerCase());
        if (property.catalogColumn) boundTables.add(property.catalogColumn.split('.')[0].toLowerCase());
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
    for (const table of input.catalog.content?.tables ?? []) {
      sections.push({
        kind: 'table',
        key: table.name,
        text: renderTable(table),
        score: this.tableScore(table, text, terms, matchedMappings, boundTables),
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
    const toolList = input.tools.map((tool) => `- ${tool.name}: ${tool.description}`).join('\n');
    const header = `Current time (UTC): ${input.now.toISOString()}\nQuestion: ${input.query}\n\nAvailable tools (tool_type must be one of these names):\n${toolList}\n`;
    let used = estimateTokens(system) + estimateTokens(header) + 16;

    const included = new Set<Section>();
    const ranked = [...sections].sort((a, b) => b.score - a.score || a.text.length - b.text.length);
    for (const section of ranked) {
      if (section.score <= 0 && section.kind === 'table') continue;
      const cost = estimateTokens(section.text) + 1;
      if (used + cost > input.tokenBudget) continue;
      included.add(section);
      used += cost;
    }
    for (const section of ranked) {
      if (included.has(section) || section.kind !== 'table') continue;
      const cost = estimateTokens(section.text) + 1;
      if (used + cost > input.tokenBudget) continue;
      included.add(section);
      used += cost;
    }

    const pick = (kind: Section['kind']) =>
      (kind === 'table' ? ranked : sections).filter((s) => s.kind === kind && included.has(s));
    const user = [
      header,
      `Tool input schemas:\n${
        pick('tool')
          .map((s) => s.text)
          .join('\n') || '(none fit the budget)'
      }`,
      `Catalog (source ${input.catalog.content?.source.kind ?? 'none'}):\n${
        pick('table')
          .map((s) => s.text)
          .join('\n') || '(no catalog published)'
      }`,
      `Keyword mappings:\n${
        pick('mapping')
          .map((s) => s.text)
          .join('\n') || '(none)'
      }`,
      'Return the plan JSON.',
    ].join('\n\n');
    const omitted = (kind: Section['kind']) => sections.filter((s) => s.kind === kind && !included.has(s));
    return {
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      report: {
        estimated_tokens: estimateTokens(system) + estimateTokens(user),
        token_budget: input.tokenBudget,
        included_tables: pick('table').map((s) => s.key),
        omitted_tables: omitted('table').map((s) => s.key),
        omitted_tool_schemas: omitted('tool').map((s) => s.key),
        omitted_mappings: omitted('mapping').length,
      },
    };
  }

  private tableScore(
    table: CatalogTable,
    text: string,
    terms: Set<string>,
    mappings: KeywordMapping[],
    bound: Set<string>,
  ): number {
    let score = bound.has(table.name.toLowerCase()) ? 5 : 0;
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
