import { BUILTIN_TOOL_DEFINITIONS, OPS_CATALOG } from '@app/ops';
import { CatalogIndex } from '../knowledge/catalog-index';
import { PlanValidator } from './plan-validator';

const OPS_TOOL_DEFINITIONS = [...BUILTIN_TOOL_DEFINITIONS];

const RANGE = { start: '2026-11-09T00:00:00Z', end: '2026-11-16T00:00:00Z' };
const context = {
  tools: OPS_TOOL_DEFINITIONS,
  catalog: new CatalogIndex(OPS_CATALOG),
  maxLimit: 50,
  maxSteps: 4,
};
const validate = (plan: unknown) => new PlanValidator().validate(plan, context);
const codes = (plan: unknown) => validate(plan).errors.map((e) => e.code);

describe('PlanValidator', () => {
  it('accepts a valid plan, fills defaults and caps limits', () => {
    const result = validate({
      intent: 'query_metrics',
      steps: [
        {
          id: 'a',
          tool_type: 'ci_lookup',
          parameters: { filters: { environment: ['prod', 'staging'] }, limit: 500 },
        },
        {
          id: 'b',
          tool_type: 'metric_query',
          parameters: {
            metric_name: 'cpu_usage',
            time_range: RANGE,
            ci_ids: { $ref: 'a', path: 'items.id' },
          },
        },
      ],
    });
    expect(result.errors).toEqual([]);
    expect(result.plan?.steps[0].parameters).toMatchObject({ limit: 50, keywords: [] });
    expect(result.plan?.steps[1]).toMatchObject({
      depends_on: ['a'],
      parameters: { agg: 'avg', group_by: 'item' },
    });
    expect(result.warnings).toEqual(['a: limit 500 capped to 50.']);
  });

  it('rejects what is not a plan', () => {
    expect(codes('nope')).toEqual(['MALFORMED_PLAN']);
    expect(codes({ intent: 'x', steps: [{ parameters: {} }] })).toEqual(['MALFORMED_PLAN']);
  });

  it('rejects an unknown tool, naming the tools that exist', () => {
    const result = validate({ intent: 'x', steps: [{ id: 's1', tool_type: 'sql_query', parameters: {} }] });
    expect(result.valid).toBe(false);
    expect(result.plan).toBeNull();
    expect(result.errors[0]).toMatchObject({ code: 'UNKNOWN_TOOL', step_id: 's1' });
    expect(result.errors[0].message).toContain('ci_lookup');
  });

  it('rejects parameters that do not follow the input schema', () => {
    const result = validate({
      intent: 'x',
      steps: [
        {
          id: 's1',
          tool_type: 'metric_query',
          parameters: {
            metric_name: 'cpu_usage',
            top_n: 'five',
            agg: 'median',
            time_range: { relative: 'someday' },
          },
        },
      ],
    });
    expect(result.errors.map((e) => [e.code, e.path])).toEqual(
      expect.arrayContaining([
        ['INVALID_PARAMETERS', '/parameters/time_range/relative'],
        ['INVALID_PARAMETERS', '/parameters/top_n'],
        ['INVALID_PARAMETERS', '/parameters/agg'],
      ]),
    );
  });

  it('checks filter fields and values, and catalog-bound values, against the catalog', () => {
    const result = validate({
      intent: 'x',
      steps: [
        {
          id: 's1',
          tool_type: 'ci_lookup',
          parameters: { filters: { region: 'kr', environment: 'production' } },
        },
        {
          id: 's2',
          tool_type: 'metric_query',
          parameters: { metric_name: 'cpu_usage', ci_filter: { environment: 'live' }, time_range: RANGE },
        },
      ],
    });
    const catalogIssues = result.errors.filter((e) => e.code !== 'INVALID_PARAMETERS');
    expect(catalogIssues.map((e) => [e.code, e.path])).toEqual([
      ['UNKNOWN_FILTER_FIELD', '/parameters/filters/region'],
      ['INVALID_FILTER_VALUE', '/parameters/filters/environment'],
      ['INVALID_FILTER_VALUE', '/parameters/ci_filter/environment'],
    ]);
    expect(catalogIssues[1].message).toContain('prod, staging, dev');
  });

  it('allows references to earlier steps only and rejects cycles and unknown dependencies', () => {
    expect(
      codes({
        intent: 'x',
        steps: [
          {
            id: 's1',
            tool_type: 'metric_query',
            parameters: { metric_name: 'cpu_usage', time_range: RANGE, ci_ids: { $ref: 's2' } },
          },
          { id: 's2', tool_type: 'ci_lookup', parameters: {} },
        ],
      }),
    ).toEqual(['INVALID_REFERENCE']);
    expect(
      codes({
        intent: 'x',
        steps: [{ id: 's1', tool_type: 'ci_lookup', parameters: { ids: { $ref: 'zz' } } }],
      }),
    ).toEqual(['INVALID_REFERENCE']);
    expect(
      codes({
        intent: 'x',
        steps: [
          { id: 's1', tool_type: 'ci_lookup', parameters: {}, depends_on: ['s2'] },
          { id: 's2', tool_type: 'ci_lookup', parameters: {}, depends_on: ['s1'] },
        ],
      }),
    ).toEqual(['DEPENDENCY_CYCLE']);
    expect(
      codes({
        intent: 'x',
        steps: [{ id: 's1', tool_type: 'ci_lookup', parameters: {}, depends_on: ['s9'] }],
      }),
    ).toEqual(['UNKNOWN_DEPENDENCY']);
  });

  it('limits the number of steps and rejects duplicate ids', () => {
    const many = Array.from({ length: 5 }, (_, i) => ({
      id: `s${i}`,
      tool_type: 'ci_lookup',
      parameters: {},
    }));
    expect(codes({ intent: 'x', steps: many })).toEqual(['TOO_MANY_STEPS']);
    expect(codes({ intent: 'x', steps: [many[0], many[0]] })).toEqual(['DUPLICATE_STEP_ID']);
  });
});
