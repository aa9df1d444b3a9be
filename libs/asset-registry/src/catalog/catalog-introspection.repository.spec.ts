import { checkConstraintValues, quoteIdent } from './catalog-introspection.repository';
import { mergeCatalogTables } from './catalog-sync.service';

describe('catalog introspection helpers', () => {
  it('reads the allowed values of an IN check constraint', () => {
    expect(
      checkConstraintValues(
        "CHECK (((status)::text = ANY ((ARRAY['running'::character varying, 'it''s'::character varying])::text[])))",
      ),
    ).toEqual(['running', "it's"]);
    expect(checkConstraintValues('CHECK ((cpu >= 0))')).toBeNull();
    expect(quoteIdent('we"ird')).toBe('"we""ird"');
  });

  it('keeps what admins wrote where the database says nothing', () => {
    const merged = mergeCatalogTables(
      [{ name: 't', description: null, columns: [{ name: 'c', type: 'text', description: null }] }],
      [
        {
          name: 't',
          description: 'hand written',
          columns: [{ name: 'c', type: 'text', description: 'mine', aliases: ['씨'], enum_values: ['a'] }],
        },
      ],
    );
    expect(merged[0]).toMatchObject({
      description: 'hand written',
      columns: [{ name: 'c', description: 'mine', aliases: ['씨'], enum_values: ['a'] }],
    });
  });
});
