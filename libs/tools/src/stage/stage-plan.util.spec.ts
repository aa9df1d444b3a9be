import { parseRef, planStage, resolveRefs, StepReferenceError } from './stage-plan.util';
import { StageException } from './stage.exception';

const known = (name: string) => name !== 'nope';

function problems(run: () => unknown): string[] {
  try {
    run();
    return [];
  } catch (error) {
    if (!(error instanceof StageException)) throw error;
    return (error.details as { problems: Array<{ problem: string }> }).problems.map((p) => p.problem);
  }
}

describe('planStage', () => {
  it('names steps, and adds the steps an input references to its dependencies', () => {
    const steps = planStage(
      [
        { tool_name: 'ci_lookup', input: {} },
        { id: 'cpu', tool_name: 'metric_query', input: { ci_ids: { $ref: 'step1.data.items[*].id' } } },
        { tool_name: 'history_query', depends_on: ['cpu'] },
      ],
      known,
    );
    expect(steps.map((s) => [s.id, s.depends_on])).toEqual([
      ['step1', []],
      ['cpu', ['step1']],
      ['step3', ['cpu']],
    ]);
  });

  it('refuses unknown steps, forward references, self references, duplicate ids, bad paths and unknown tools', () => {
    expect(
      problems(() => planStage([{ tool_name: 'a', input: { x: { $ref: 'ghost.data' } } }], known)),
    ).toEqual(['unknown_step']);
    expect(
      problems(() => planStage([{ tool_name: 'a', depends_on: ['step2'] }, { tool_name: 'b' }], known)),
    ).toEqual(['forward_reference']);
    expect(
      problems(() => planStage([{ id: 'a', tool_name: 'a', input: { x: { $ref: 'a.data' } } }], known)),
    ).toEqual(['cycle']);
    expect(
      problems(() =>
        planStage(
          [
            { id: 'a', tool_name: 'a' },
            { id: 'a', tool_name: 'b' },
          ],
          known,
        ),
      ),
    ).toEqual(['duplicate_id']);
    expect(
      problems(() => planStage([{ tool_name: 'a', input: { x: { $ref: 'step1..x' } } }], known)),
    ).toEqual(['bad_reference']);
    expect(problems(() => planStage([{ tool_name: 'nope' }], known))).toEqual(['unknown_tool']);
  });
});

describe('resolveRefs', () => {
  const results = new Map<string, unknown>([
    [
      'step1',
      {
        success: true,
        data: {
          items: [
            { id: 'a', tags: ['x'] },
            { id: 'b', tags: ['y', 'z'] },
          ],
          count: 2,
        },
      },
    ],
  ]);

  it('resolves fields, indexes and [*] maps anywhere in the input, leaving other values alone', () => {
    expect(
      resolveRefs(
        {
          ids: { $ref: 'step1.data.items[*].id' },
          first: { $ref: 'step1.data.items[0].id' },
          nested: [{ tags: { $ref: 'step1.data.items[*].tags[0]' } }],
          count: { $ref: 'step1.data.count' },
          literal: { $ref: 'not alone', other: 1 },
        },
        results,
      ),
    ).toEqual({
      ids: ['a', 'b'],
      first: 'a',
      nested: [{ tags: ['x', 'y'] }],
      count: 2,
      literal: { $ref: 'not alone', other: 1 },
    });
  });

  it('reads a field of a list as that field of every element, flattening lists one level', () => {
    expect(resolveRefs({ ids: { $ref: 'step1.data.items.id' } }, results)).toEqual({ ids: ['a', 'b'] });
    expect(resolveRefs({ tags: { $ref: 'step1.data.items.tags' } }, results)).toEqual({
      tags: ['x', 'y', 'z'],
    });
    expect(() => resolveRefs({ x: { $ref: 'step1.data.items.nope' } }, results)).toThrow(
      /no element has a field "nope"/,
    );
  });

  it('reports a path that does not exist', () => {
    expect(() => resolveRefs({ x: { $ref: 'step1.data.missing' } }, results)).toThrow(StepReferenceError);
    expect(() => resolveRefs({ x: { $ref: 'step1.data.items[5]' } }, results)).toThrow(/no element/);
  });

  it('parses reference paths', () => {
    expect(parseRef('s-1.data.items[*].id')).toEqual({
      step: 's-1',
      path: [{ key: 'data' }, { key: 'items' }, { all: true }, { key: 'id' }],
    });
    expect(parseRef('1bad')).toBeNull();
  });
});
