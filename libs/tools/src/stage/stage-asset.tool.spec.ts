import { STAGE_TOOL_NAME, stageStepTools } from './stage-asset.tool';

describe('stage assets as tools', () => {
  it("lists the tools a stage's steps call, across stages, once each", () => {
    expect(
      stageStepTools({
        stages: [
          { stage_name: 'a', tools: [{ tool_name: 'ci_lookup' }, { tool_name: 'metric_query' }] },
          { stage_name: 'b', tools: [{ tool_name: 'ci_lookup' }, { tool_name: 'restart' }] },
        ],
      }),
    ).toEqual(['ci_lookup', 'metric_query', 'restart']);
    expect(stageStepTools(null)).toEqual([]);
  });

  it('offers a stage as a tool only under a tool name', () => {
    expect(STAGE_TOOL_NAME.test('items-by-env')).toBe(true);
    expect(STAGE_TOOL_NAME.test('nightly.report')).toBe(false);
    expect(STAGE_TOOL_NAME.test('x'.repeat(65))).toBe(false);
  });
});
