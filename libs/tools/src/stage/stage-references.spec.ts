import {
  isRef,
  outputMappingProblems,
  parseRef,
  planStage,
  referencedStep,
  resolveRefs,
  StepReferenceError,
} from './stage-plan.util';
import { StageException } from './stage.exception';

const anyTool = () => true;

function problems(run: () => unknown): Array<{ step: string; problem: string }> {
  try {
    run();
    return [];
  } catch (error) {
    if (!(error instanceof StageException)) throw error;
    return (error.details as { problems: Array<{ step: string; problem: string }> }).problems.map(
      ({ step, problem }) => ({ step, problem }),
    );
  }
}

describe('what counts as a reference', () => {
  it('is an object with exactly one key, $ref, holding a string', () => {
    expect(isRef({ $ref: 'a.data' })).toBe(true);
    expect(isRef({ $ref: 'a.data', note: 'x' })).toBe(false);
    expect(isRef({ $ref: 1 })).toBe(false);
    expect(isRef([{ $ref: 'a' }])).toBe(false);
    expect(isRef(null)).toBe(false);
    expect(isRef('{"$ref": "a"}')).toBe(false);
  });

  it.each([
    ['servers', { step: 'servers', path: [] }],
    ['step-1.data', { step: 'step-1', path: [{ key: 'data' }] }],
    [
      's.data.items[0].tags[*]',
      { step: 's', path: [{ key: 'data' }, { key: 'items' }, { index: 0 }, { key: 'tags' }, { all: true }] },
    ],
    ['params.env', { step: 'params', path: [{ key: 'env' }] }],
  ])('parses %s', (ref, parsed) => {
    expect(parseRef(ref)).toEqual(parsed);
    expect(referencedStep(ref)).toBe(parsed.step);
  });

  it.each([
    '',
    '1step.data',
    'a..b',
    'a.',
    'a[x]',
    'a[-1]',
    'a.b c',
    '결과.data',
    'a.데이터',
    '{{steps.a.data}}',
    'a.b[*',
  ])('refuses %p as a reference path', (ref) => {
    expect(parseRef(ref)).toBeNull();
    expect(referencedStep(ref)).toBeNull();
  });
});

describe('resolving references against earlier results', () => {
  const results = new Map<string, unknown>([
    [
      'servers',
      {
        data: {
          items: [
            { id: 'a', tags: ['x', 'y'], owner: { team: '결제팀' } },
            { id: 'b', tags: ['z'] },
          ],
          total: 2,
          empty: [],
        },
      },
    ],
    ['params', { env: 'prod', limit: 0, flag: false, nothing: null }],
  ]);
  const resolve = (input: unknown) => resolveRefs(input, results);

  it('substitutes references nested in arrays and objects, leaving other values (and look-alikes) untouched', () => {
    expect(
      resolve({
        ids: { $ref: 'servers.data.items[*].id' },
        filter: { environment: [{ $ref: 'params.env' }], note: '{{steps.servers.data.total}}' },
        notRef: { $ref: 'params.env', extra: true },
        n: 3,
      }),
    ).toEqual({
      ids: ['a', 'b'],
      filter: { environment: ['prod'], note: '{{steps.servers.data.total}}' },
      notRef: { $ref: 'params.env', extra: true },
      n: 3,
    });
  });

  it('keeps falsy values as they are: 0, false and null are results, not gaps', () => {
    expect(resolve([{ $ref: 'params.limit' }, { $ref: 'params.flag' }, { $ref: 'params.nothing' }])).toEqual([
      0,
      false,
      null,
    ]);
  });

  it('reads a field of a list from the elements that have it, flattening one level', () => {
    expect(resolve({ $ref: 'servers.data.items.tags' })).toEqual(['x', 'y', 'z']);
    expect(resolve({ $ref: 'servers.data.items.owner' })).toEqual([{ team: '결제팀' }]);
    expect(resolve({ $ref: 'servers.data.items[0].owner.team' })).toBe('결제팀');
    expect(resolve({ $ref: 'servers.data.empty.id' })).toEqual([]);
  });

  it.each([
    ['ghost.data', /step "ghost" has no result/],
    ['servers.data.items[2]', /no element \[2\]/],
    ['servers.data.total[*]', /\[\*\] applied to a non-list/],
    ['servers.data.missing', /no field "missing"/],
    ['servers.data.items.nope', /no element has a field "nope"/],
    ['params.env.length', /no field "length"/],
  ])('reports %s as a broken reference', (ref, message) => {
    expect(() => resolve({ x: { $ref: ref } })).toThrow(StepReferenceError);
    expect(() => resolve({ x: { $ref: ref } })).toThrow(message);
  });

  it('does not change the results it read from', () => {
    const before = JSON.stringify([...results]);
    resolve({ a: { $ref: 'servers.data.items[*].tags' } });
    expect(JSON.stringify([...results])).toBe(before);
  });
});

describe('checking a stage before it runs', () => {
  it('lets steps reference params and earlier stages of a chain without making them dependencies', () => {
    const steps = planStage(
      [
        {
          tool_name: 'metric_query',
          input: { env: { $ref: 'params.env' }, ids: { $ref: 'lookup.data.ids' } },
        },
      ],
      anyTool,
      new Set(['params', 'lookup']),
    );
    expect(steps[0].depends_on).toEqual([]);
  });

  it('refuses a step id that shadows params or an earlier stage', () => {
    expect(
      problems(() => planStage([{ id: 'params', tool_name: 't' }], anyTool, new Set(['params']))),
    ).toEqual([{ step: 'params', problem: 'duplicate_id' }]);
  });

  it('counts a dependency named twice (depends_on and a reference) once', () => {
    const [, second] = planStage(
      [
        { id: 'a', tool_name: 't' },
        {
          id: 'b',
          tool_name: 't',
          depends_on: ['a'],
          input: { x: { $ref: 'a.data' }, y: [{ $ref: 'a.data.id' }] },
        },
      ],
      anyTool,
    );
    expect(second.depends_on).toEqual(['a']);
  });

  it('reports every problem of every step at once', () => {
    expect(
      problems(() =>
        planStage(
          [
            { id: 'a', tool_name: 'gone', input: { x: { $ref: 'c.data' } } },
            { id: 'a', tool_name: 't', input: { y: { $ref: 'bad path' } } },
            { id: 'c', tool_name: 't', depends_on: ['c'] },
          ],
          (name) => name !== 'gone',
        ),
      ),
    ).toEqual([
      { step: 'a', problem: 'duplicate_id' },
      { step: 'a', problem: 'unknown_tool' },
      { step: 'a', problem: 'forward_reference' },
      { step: 'a', problem: 'bad_reference' },
      { step: 'c', problem: 'cycle' },
    ]);
  });

  it('checks an output mapping against the names it may use', () => {
    expect(
      outputMappingProblems(
        { top: { $ref: 'cpu.data.groups[0]' }, all: [{ $ref: 'ghost.data' }], bad: { $ref: '1x' } },
        new Set(['cpu', 'params']),
      ).map((p) => p.problem),
    ).toEqual(['unknown_step', 'bad_reference']);
    expect(outputMappingProblems(undefined, new Set())).toEqual([]);
  });
});
