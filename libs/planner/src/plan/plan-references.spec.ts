import { toStageReferences } from './plan-references';

describe('toStageReferences', () => {
  it('rewrites the earlier { $ref, path } form to the stage syntax, anywhere in the parameters', () => {
    expect(
      toStageReferences({
        ci_ids: { $ref: 's1', path: 'items.id' },
        whole: { $ref: 's2' },
        nested: [{ x: { $ref: 's3', path: '.nodes.id' } }],
        literal: 'keep',
      }),
    ).toEqual({
      ci_ids: { $ref: 's1.data.items.id' },
      whole: { $ref: 's2.data' },
      nested: [{ x: { $ref: 's3.data.nodes.id' } }],
      literal: 'keep',
    });
  });

  it('leaves references already in the stage syntax, and objects that are not references, alone', () => {
    const value = {
      a: { $ref: 's1.data.items[*].id' },
      b: { $ref: 's1', other: 1 },
      c: { $ref: 's1.data.count', path: 'ignored?' },
    };
    expect(toStageReferences(value)).toEqual(value);
  });
});
