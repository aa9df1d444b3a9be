import type { Plan, PlanExecutionResult } from '../plan/plan.types';
import { BUILTIN_TOOL_DEFINITIONS } from '@app/ops';
import { readableNumber, templateAnswer } from './template-answer.util';

describe('templateAnswer', () => {
  it('rounds numbers for reading to two decimals', () => {
    expect(readableNumber(85.95543452380953)).toBe('85.96');
    expect(readableNumber('12.3456')).toBe('12.35');
    expect(readableNumber(42)).toBe('42');
    expect(readableNumber('n/a')).toBe('n/a');
  });

  it('writes metric groups with rounded values while the structured result keeps the raw ones', () => {
    const plan = { language: 'en', steps: [{ step_id: 's1', tool_type: 'metric_query' }] } as unknown as Plan;
    const execution = {
      status: 'succeeded',
      steps: [
        {
          step_id: 's1',
          tool_type: 'metric_query',
          status: 'succeeded',
          result: {
            success: true,
            warnings: [],
            data: {
              metric: 'cpu_usage',
              aggregation: 'avg',
              groups: [{ ci_name: 'web-01', value: 85.95543452380953 }],
            },
          },
        },
      ],
    } as unknown as PlanExecutionResult;
    const answer = templateAnswer(plan, execution, []);
    expect(answer).toContain('1. web-01: 85.96');
    expect(answer).not.toContain('85.955');
  });

  it('gives the item lookup that scopes a metric ranking one line instead of an unrelated list', () => {
    const plan = {
      language: 'en',
      steps: [
        { id: 's1', tool_type: 'ci_lookup', parameters: {} },
        { id: 's2', tool_type: 'metric_query', parameters: {} },
      ],
    } as unknown as Plan;
    const items = Array.from({ length: 40 }, (_, i) => ({ name: `prod-${i}`, ci_type: 'server' }));
    const execution = {
      status: 'succeeded',
      steps: [
        {
          step_id: 's1',
          tool_type: 'ci_lookup',
          status: 'succeeded',
          result: { success: true, warnings: [], data: { items, total: 40 } },
        },
        {
          step_id: 's2',
          tool_type: 'metric_query',
          status: 'succeeded',
          result: {
            success: true,
            warnings: [],
            data: { metric: 'cpu_usage', aggregation: 'avg', groups: [{ ci_name: 'prod-7', value: 91.234 }] },
          },
        },
      ],
    } as unknown as PlanExecutionResult;
    const answer = templateAnswer(plan, execution, [...BUILTIN_TOOL_DEFINITIONS]);
    expect(answer).toContain('ci_lookup: scoped to 40 matching item(s).');
    expect(answer).not.toContain('- prod-0');
    expect(answer).toContain('1. prod-7: 91.23');
  });
});
