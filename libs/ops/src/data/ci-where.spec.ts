import { ciWhere } from './configuration-item.repository';
import { likePattern, SqlParams } from './sql-params.util';

const TENANT = '00000000-0000-4000-8000-000000000001';

describe('the item filter shared by lookups and metric/history scoping', () => {
  it('always binds the tenant first, and adds nothing else for no filters or empty lists', () => {
    const params = new SqlParams();
    expect(ciWhere(params, TENANT, { names: [], ci_type: [], tags: [], attributes: {} })).toBe(
      'ci.tenant_id = $1',
    );
    expect(params.values).toEqual([TENANT]);
  });

  it('keeps an empty id list as a filter: "only these items" with none matches nothing', () => {
    const params = new SqlParams();
    expect(ciWhere(params, TENANT, { ids: [] })).toContain('ci.id = ANY($2::uuid[])');
    expect(params.values).toEqual([TENANT, []]);
  });

  it('binds every value as a parameter, so no filter value ever becomes SQL text', () => {
    const hostile = "x'); DROP TABLE ops_configuration_items; --";
    const params = new SqlParams();
    const where = ciWhere(
      params,
      TENANT,
      {
        names: [hostile],
        ci_type: ['server'],
        environment: ['prod'],
        status: ['running'],
        owner: [hostile],
        tags: ['tier-1'],
        attributes: { region: hostile },
      },
      'item',
    );
    expect(where).not.toContain('DROP');
    expect(where).not.toContain('tier-1');
    expect(where.split(' AND ')).toHaveLength(8);
    expect(where.split(' AND ').every((clause) => clause.startsWith('item.'))).toBe(true);
    expect(params.values).toEqual([
      TENANT,
      [hostile],
      ['server'],
      ['prod'],
      ['running'],
      [hostile],
      ['tier-1'],
      JSON.stringify({ region: hostile }),
    ]);
  });

  it('requires every tag (containment) and matches attributes as JSON containment', () => {
    const params = new SqlParams();
    const where = ciWhere(params, TENANT, { tags: ['payment', 'tier-1'], attributes: { os: 'Ubuntu' } });
    expect(where).toContain('ci.tags @> $2::text[]');
    expect(where).toContain('ci.attributes @> $3::jsonb');
  });

  it('continues numbering after parameters the caller already added', () => {
    const params = new SqlParams();
    params.add('earlier');
    expect(ciWhere(params, TENANT, { status: ['stopped'] })).toBe(
      'ci.tenant_id = $2 AND ci.status = ANY($3::text[])',
    );
  });
});

describe('likePattern', () => {
  it.each([
    ['cpu', '%cpu%'],
    ['100%', '%100\\%%'],
    ['prod_db', '%prod\\_db%'],
    ['C:\\temp', '%C:\\\\temp%'],
    ['결제_서버', '%결제\\_서버%'],
  ])('matches %s literally inside the text', (text, pattern) => {
    expect(likePattern(text)).toBe(pattern);
  });
});
