import { OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from './ops-catalog';
import { AGGREGATIONS } from '@app/tools';
import {
  CI_ENVIRONMENTS,
  CI_STATUSES,
  CI_TYPES,
  EVENT_KINDS,
  EVENT_SEVERITIES,
  METRIC_NAMES,
  RELATION_TYPES,
} from './ops-vocabulary';
import { RELATIVE_RANGE_PATTERN } from './time-range.util';
import { BUILTIN_TOOL_DEFINITIONS } from '../tools/builtin-tool-definitions';

const HANGUL = /[\uAC00-\uD7A3]/;
const column = (table: string, name: string) =>
  OPS_CATALOG.tables.find((t) => t.name === table)?.columns.find((c) => c.name === name);
const mappings = OPS_KEYWORD_MAPPINGS.mappings;

describe('the OPS catalog', () => {
  it('lists, for every closed column, exactly the vocabulary the tools and the seeder use', () => {
    expect(column('configuration_items', 'ci_type')?.enum_values).toEqual([...CI_TYPES]);
    expect(column('configuration_items', 'environment')?.enum_values).toEqual([...CI_ENVIRONMENTS]);
    expect(column('configuration_items', 'status')?.enum_values).toEqual([...CI_STATUSES]);
    expect(column('metrics', 'metric_name')?.enum_values).toEqual(METRIC_NAMES);
    expect(column('history_events', 'kind')?.enum_values).toEqual([...EVENT_KINDS]);
    expect(column('history_events', 'severity')?.enum_values).toEqual([...EVENT_SEVERITIES]);
    expect(column('ci_relations', 'relation_type')?.enum_values).toEqual([...RELATION_TYPES]);
  });

  it('names only tables it declares in its references, and has no tenant column (rows are pre-filtered)', () => {
    const tables = new Set(OPS_CATALOG.tables.map((t) => t.name));
    for (const table of OPS_CATALOG.tables) {
      expect(table.columns.map((c) => c.name)).not.toContain('tenant_id');
      for (const reference of table.references ?? []) {
        expect(tables.has(reference.table)).toBe(true);
        for (const name of reference.referenced_columns) expect(column(reference.table, name)).toBeDefined();
        for (const name of reference.columns) expect(column(table.name, name)).toBeDefined();
      }
    }
  });
});

describe('the OPS keyword mappings', () => {
  it('map metric words only to metrics that exist, each metric reachable in Korean and in English', () => {
    const metric = mappings.filter((m) => m.kind === 'metric');
    for (const m of metric) expect(METRIC_NAMES).toContain(m.value);
    for (const name of METRIC_NAMES) {
      const words = metric.filter((m) => m.value === name).map((m) => m.keyword);
      expect(words.some((w) => HANGUL.test(w))).toBe(true);
      expect(words.some((w) => /^[a-z0-9 %/-]+$/i.test(w))).toBe(true);
    }
  });

  it('map filter words to a value of the column they name', () => {
    const columnOf: Record<string, [string, string]> = {
      ci_type: ['configuration_items', 'ci_type'],
      environment: ['configuration_items', 'environment'],
      status: ['configuration_items', 'status'],
      kind: ['history_events', 'kind'],
      severity: ['history_events', 'severity'],
    };
    for (const m of mappings.filter((mapping) => mapping.kind === 'filter')) {
      const [table, name] = columnOf[m.field!];
      expect({ keyword: m.keyword, values: column(table, name)?.enum_values }).toEqual({
        keyword: m.keyword,
        values: expect.arrayContaining([m.value]),
      });
    }
  });

  it('never maps one word to two values of the same metric or filter field (the planner could not choose)', () => {
    const seen = new Map<string, string>();
    const clashes: string[] = [];
    for (const m of mappings.filter((mapping) => mapping.kind === 'metric' || mapping.kind === 'filter')) {
      const key = `${m.kind}:${m.field ?? ''}:${m.keyword.toLowerCase()}`;
      const before = seen.get(key);
      if (before !== undefined && before !== m.value) clashes.push(`${key} -> ${before} | ${m.value}`);
      seen.set(key, m.value);
    }
    expect(clashes).toEqual([]);
  });

  it('map aggregation, tool, view and time words only to values the tools accept', () => {
    const tools = new Set(BUILTIN_TOOL_DEFINITIONS.map((d) => d.name));
    const graph = BUILTIN_TOOL_DEFINITIONS.find((d) => d.name === 'graph_analysis')!;
    const views = (graph.input_schema.properties as Record<string, { enum?: string[] }>).view.enum;
    const relative = new RegExp(RELATIVE_RANGE_PATTERN);
    for (const m of mappings) {
      if (m.kind === 'aggregation') expect(AGGREGATIONS).toContain(m.value);
      if (m.kind === 'tool') expect(tools.has(m.value)).toBe(true);
      if (m.kind === 'other' && m.field === 'view') expect(views).toContain(m.value);
      if (m.kind === 'other' && m.description === 'time_range.relative') expect(m.value).toMatch(relative);
    }
  });

  it('have no empty or padded keyword', () => {
    for (const m of mappings) expect(m.keyword).toBe(m.keyword.trim());
    expect(mappings.filter((m) => m.keyword.trim() === '')).toEqual([]);
  });
});
