import type { ResolverContent, ResolverRule } from '@app/asset-registry';
import type { CiFilters } from '../data/configuration-item.repository';

/** Resolver fields ci_lookup understands, and the filter each one sets. */
const FIELD_FILTERS: Record<string, keyof Omit<CiFilters, 'ids' | 'attributes'>> = {
  name: 'names',
  names: 'names',
  ci_name: 'names',
  ci_code: 'names',
  ci_type: 'ci_type',
  environment: 'environment',
  status: 'status',
  owner: 'owner',
  tag: 'tags',
  tags: 'tags',
};

/** Regex rules are tenant-written: they only ever see this much of a keyword (bounds backtracking). */
const REGEX_INPUT_LIMIT = 64;

export interface NamedResolver {
  name: string;
  content: ResolverContent;
}

function matches(rule: ResolverRule, keyword: string): boolean {
  const text = keyword.toLowerCase();
  const pattern = rule.pattern.toLowerCase();
  switch (rule.match_type) {
    case 'exact':
      return text === pattern;
    case 'prefix':
      return text.startsWith(pattern);
    case 'contains':
      return text.includes(pattern);
    case 'regex':
      try {
        return keyword.length <= REGEX_INPUT_LIMIT && new RegExp(rule.pattern, 'iu').test(keyword);
      } catch {
        return false;
      }
  }
}

/**
 * The tenant's published resolvers turn what a person types ("결제서버") into a field filter on
 * configuration items (`names = SRV-PAY-01`). The first matching rule of the first resolver (by name)
 * wins; a rule on a field ci_lookup does not filter on is ignored. Resolved keywords leave the text search.
 */
export function resolveKeywords(
  resolvers: NamedResolver[],
  keywords: string[],
  filters: CiFilters,
): {
  keywords: string[];
  filters: CiFilters;
  resolved: Array<{ keyword: string; field: string; value: string; resolver: string }>;
} {
  const next: CiFilters = { ...filters };
  const remaining: string[] = [];
  const resolved: Array<{ keyword: string; field: string; value: string; resolver: string }> = [];
  const ordered = [...resolvers].sort((a, b) => a.name.localeCompare(b.name));
  for (const keyword of keywords) {
    const trimmed = keyword.trim();
    let hit: { rule: ResolverRule; resolver: string } | undefined;
    for (const resolver of ordered) {
      const rule = resolver.content.rules.find((r) => FIELD_FILTERS[r.field] && matches(r, trimmed));
      if (rule) {
        hit = { rule, resolver: resolver.name };
        break;
      }
    }
    if (!hit) {
      remaining.push(keyword);
      continue;
    }
    const filter = FIELD_FILTERS[hit.rule.field];
    const current = next[filter] ?? [];
    next[filter] = current.includes(hit.rule.value) ? current : [...current, hit.rule.value];
    resolved.push({ keyword: trimmed, field: filter, value: hit.rule.value, resolver: hit.resolver });
  }
  return { keywords: remaining, filters: next, resolved };
}
