import type { DataSource } from 'typeorm';
import { HistoryEventRepository, HistorySearch } from './history-event.repository';

/** Records the statement and answers with the given rows (this spec is about what is asked, not SQL). */
function recorder(rows: unknown[] = []) {
  const calls: Array<{ sql: string; params: unknown[] }> = [];
  const dataSource = {
    query: (sql: string, params: unknown[]) => {
      calls.push({ sql, params });
      return Promise.resolve(rows);
    },
  } as unknown as DataSource;
  return { calls, repository: new HistoryEventRepository(dataSource) };
}

const base: HistorySearch = {
  tenantId: 'tenant-1',
  start: new Date('2026-02-01T00:00:00Z'),
  end: new Date('2026-02-08T00:00:00Z'),
  order: 'desc',
  limit: 50,
};

describe('history_query search', () => {
  it('binds the tenant, the window and the limit, newest first by default', async () => {
    const { calls, repository } = recorder();
    await repository.search(base);
    const [{ sql, params }] = calls;
    expect(params).toEqual(['tenant-1', base.start, base.end, 50]);
    expect(sql).toMatch(/ORDER BY e\.occurred_at DESC, e\.id/);
    // Events of no item (or of any item) are kept when the search does not scope by item.
    expect(sql).toMatch(/LEFT JOIN ops_configuration_items/);
  });

  it('requires every keyword in title or details, matched literally (LIKE wildcards escaped)', async () => {
    const { calls, repository } = recorder();
    await repository.search({ ...base, keywords: ['100%', '결제_서버'], order: 'asc' });
    const [{ sql, params }] = calls;
    expect(params).toEqual(expect.arrayContaining(['%100\\%%', '%결제\\_서버%']));
    expect(sql.match(/e\.title ILIKE \$\d+ OR e\.details ILIKE \$\d+/g)).toHaveLength(2);
    expect(sql).not.toContain('결제');
    expect(sql).toMatch(/ORDER BY e\.occurred_at ASC/);
  });

  it('filters kinds and severities only when given, as bound lists', async () => {
    const { calls, repository } = recorder();
    await repository.search({ ...base, kinds: [], severities: ['critical', 'major'] });
    const [{ sql, params }] = calls;
    expect(sql).not.toMatch(/e\.kind = ANY/);
    expect(sql).toMatch(/e\.severity = ANY\(\$\d+::text\[\]\)/);
    expect(params).toContainEqual(['critical', 'major']);
  });

  it("scoped to items, keeps only events of matching items (an inner join on the tenant's items)", async () => {
    const { calls, repository } = recorder();
    await repository.search({ ...base, ciFilters: { environment: ['prod'] } });
    const [{ sql, params }] = calls;
    expect(sql).toMatch(
      /\bJOIN ops_configuration_items ci ON ci\.id = e\.ci_id AND ci\.tenant_id = e\.tenant_id/,
    );
    expect(sql).not.toMatch(/LEFT JOIN/);
    expect(params).toContainEqual(['prod']);
  });

  it('reports the total before the limit and the times as ISO strings', async () => {
    const occurred = new Date('2026-02-03T04:05:06Z');
    const { repository } = recorder([
      { id: 'e1', occurred_at: occurred, kind: 'incident', severity: 'major', title: 't', total: '7' },
    ]);
    const { events, total } = await repository.search(base);
    expect(total).toBe(7);
    expect(events).toEqual([
      { id: 'e1', occurred_at: '2026-02-03T04:05:06.000Z', kind: 'incident', severity: 'major', title: 't' },
    ]);
  });

  it('reports no events and a total of 0 for an empty window', async () => {
    const { repository } = recorder([]);
    expect(await repository.search(base)).toEqual({ events: [], total: 0 });
  });
});
