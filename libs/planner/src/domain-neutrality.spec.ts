import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { BUILTIN_TOOL_DEFINITIONS, OPS_CATALOG } from '@app/ops';

/**
 * The planner knows no domain: what it knows about a tenant's tools comes from published data (tool
 * descriptions, schemas and planning hints, the catalog, keyword mappings and labelled examples). This
 * fails when its code (specs aside) names an OPS tool, an OPS table or column, or OPS vocabulary, in code
 * or in comments: such knowledge belongs to libs/ops, published as the OPS demo's knowledge.
 */
const OPS_WORDS = [
  'server',
  'servers',
  'deployment',
  'deployments',
  'deploy',
  'deployed',
  'incident',
  'incidents',
  'outage',
  'alert',
  'alerts',
  'runbook',
  'runbooks',
  'cpu',
  'maintenance',
  'staging',
  'prod',
  'host',
  'hosts',
  'database',
  'databases',
  'db',
  'dbs',
  'severity',
  'severities',
  'configuration item',
  'configuration items',
  '서버',
  '장애',
  '배포',
  '알림',
  '런북',
  '점검',
  '호스트',
  '데이터베이스',
  '디비',
  '인시던트',
  '스테이징',
  '메트릭',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') && !full.endsWith('.spec.ts') ? [full] : [];
  });
}

function bannedTerms(): string[] {
  const tools = BUILTIN_TOOL_DEFINITIONS.map((t) => t.name).filter((name) => name !== 'document_search');
  const tables = OPS_CATALOG.tables.map((t) => t.name).filter((t) => t.includes('_'));
  const columns = OPS_CATALOG.tables
    .flatMap((t) => t.columns.map((c) => c.name))
    .filter((c) => c.includes('_'));
  const enumValues = OPS_CATALOG.tables
    .flatMap((t) => t.columns.flatMap((c) => c.enum_values ?? []))
    // depends_on is a relation type of the OPS data and also the plan's own field.
    .filter((value) => value.includes('_') && value !== 'depends_on');
  return [...new Set([...tools, ...tables, ...columns, ...enumValues, ...OPS_WORDS])].filter(
    // Generic column names any catalog has.
    (term) => !['created_at', 'updated_at', 'primary_key'].includes(term),
  );
}

function pattern(term: string): RegExp {
  const escaped = term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Hangul words may carry particles; ASCII terms are whole words (so "hostname" is not "host").
  return /[\uac00-\ud7a3]/.test(term)
    ? new RegExp(escaped)
    : new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`, 'i');
}

describe('libs/planner is domain-neutral', () => {
  it('names no OPS tool, table, column or word outside its specs', () => {
    const root = path.resolve(__dirname);
    const terms = bannedTerms().map((term) => ({ term, re: pattern(term) }));
    const hits: string[] = [];
    for (const file of sourceFiles(root))
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const { term, re } of terms)
            if (re.test(line)) hits.push(`${path.relative(root, file)}:${i + 1} "${term}": ${line.trim()}`);
        });
    expect(hits).toEqual([]);
  });

  it('catches a domain word when one is written (the check itself works)', () => {
    const terms = bannedTerms().map(pattern);
    expect(terms.some((re) => re.test("const x = 'ci_lookup';"))).toBe(true);
    expect(terms.some((re) => re.test('// the 서버들 of a team'))).toBe(true);
    expect(terms.some((re) => re.test('// look up the servers'))).toBe(true);
    expect(terms.some((re) => re.test('const hostname = row.hostname;'))).toBe(false);
  });
});
