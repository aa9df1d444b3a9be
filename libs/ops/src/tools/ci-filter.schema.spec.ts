import { keywordsToFilters, toCiFilters } from './ci-filter.schema';

describe('ci_lookup filters', () => {
  it('turns one value or a list into a list per field, and keeps ids (an empty list still filters)', () => {
    expect(toCiFilters({ environment: 'prod', ci_type: ['server', 'database'] }, undefined)).toEqual({
      ids: undefined,
      ci_type: ['server', 'database'],
      environment: ['prod'],
      status: undefined,
      owner: undefined,
      names: undefined,
      tags: undefined,
      attributes: undefined,
    });
    expect(toCiFilters(undefined, []).ids).toEqual([]);
  });

  it.each([
    ['운영', 'environment', 'prod'],
    ['프로덕션', 'environment', 'prod'],
    ['Production', 'environment', 'prod'],
    ['스테이징', 'environment', 'staging'],
    ['개발', 'environment', 'dev'],
    ['서버', 'ci_type', 'server'],
    ['디비', 'ci_type', 'database'],
    ['DB', 'ci_type', 'database'],
    ['마이크로서비스', 'ci_type', 'service'],
    ['점검 중', 'status', 'maintenance'],
    ['성능 저하', 'status', 'degraded'],
  ])('reads %s as the filter %s=%s, not as a word in item names', (keyword, field, value) => {
    const mapped = keywordsToFilters([keyword], {});
    expect(mapped.filters).toEqual({ [field]: [value] });
    expect(mapped.keywords).toEqual([]);
    expect(mapped.applied).toEqual([`${keyword} -> ${field}=${value}`]);
  });

  it('keeps other words as text keywords, trimmed, and drops blank ones', () => {
    const mapped = keywordsToFilters([' 결제 ', 'payment', '  ', '운영'], {});
    expect(mapped.keywords).toEqual(['결제', 'payment']);
    expect(mapped.filters).toEqual({ environment: ['prod'] });
  });

  it('leaves a field the caller already filtered alone: a second value stays a text keyword', () => {
    const mapped = keywordsToFilters(['dev', 'prod', '운영'], { environment: ['prod'] });
    expect(mapped.filters.environment).toEqual(['prod']);
    expect(mapped.keywords).toEqual(['dev']);
    expect(mapped.applied).toEqual(['prod -> environment=prod', '운영 -> environment=prod']);
  });

  it('maps only type, environment and status words, not history kinds or severities', () => {
    const mapped = keywordsToFilters(['장애', 'critical'], {});
    expect(mapped.filters).toEqual({});
    expect(mapped.keywords).toEqual(['장애', 'critical']);
  });

  it('does not change the filters it was given', () => {
    const given = { ci_type: ['server'] };
    keywordsToFilters(['운영'], given);
    expect(given).toEqual({ ci_type: ['server'] });
  });
});
