import { METRICS, METRIC_NAMES, EVENT_KINDS, EVENT_SEVERITIES, RELATION_TYPES } from '../data/ops-vocabulary';
import { DEMO_METRIC_EXPRESSIONS } from './demo-data.repository';
import { buildDemoDataset, prng } from './demo-dataset';

const full = buildDemoDataset('full');
const small = buildDemoDataset('small');

describe('prng', () => {
  it('repeats its sequence for a seed, stays in [0, 1), and differs between seeds', () => {
    const a = prng(7);
    const b = prng(7);
    const first = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(prng(8)()).not.toBe(prng(7)());
  });
});

describe('the demo dataset', () => {
  it('is the same for the same seed (reloads add nothing new) and differs for another seed', () => {
    expect(buildDemoDataset('full')).toEqual(full);
    expect(buildDemoDataset('full', 1)).not.toEqual(full);
  });

  it('small keeps three applications in every environment; full has twelve', () => {
    const systems = (items: typeof full.items) =>
      items.filter((i) => i.ci_type === 'application' && i.environment === 'prod').map((i) => i.name);
    expect(systems(small.items)).toEqual([
      'prod-payment-system',
      'prod-order-system',
      'prod-inventory-system',
    ]);
    expect(systems(full.items)).toHaveLength(12);
    expect(new Set(small.items.map((i) => i.environment))).toEqual(new Set(['prod', 'staging', 'dev']));
  });

  it.each([
    ['full', full],
    ['small', small],
  ])('%s: unique item names, relations between existing items of known types', (_scale, dataset) => {
    const names = new Set(dataset.items.map((i) => i.name));
    expect(names.size).toBe(dataset.items.length);
    for (const r of dataset.relations) {
      expect(names.has(r.source) && names.has(r.target)).toBe(true);
      expect(r.source).not.toBe(r.target);
      expect(RELATION_TYPES).toContain(r.type);
    }
    const keys = dataset.relations.map((r) => `${r.source}>${r.target}>${r.type}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('runs prod services on two hosts and the others on one', () => {
    const hosts = (service: string) =>
      full.relations.filter((r) => r.source === service && r.type === 'runs_on').map((r) => r.target);
    expect(hosts('prod-payment-api')).toEqual(['prod-payment-api-01', 'prod-payment-api-02']);
    expect(hosts('staging-payment-api')).toEqual(['staging-payment-api-01']);
    expect(hosts('dev-search-web')).toEqual(['dev-search-web-01']);
  });

  it('keeps the order <-> inventory dependency cycle, and only dependencies between applications present', () => {
    const depends = (dataset: typeof full, from: string, to: string) =>
      dataset.relations.some((r) => r.source === from && r.target === to && r.type === 'depends_on');
    for (const dataset of [full, small]) {
      expect(depends(dataset, 'prod-order-api', 'prod-inventory-api')).toBe(true);
      expect(depends(dataset, 'prod-inventory-api', 'prod-order-api')).toBe(true);
    }
    expect(depends(full, 'prod-order-api', 'prod-user-api')).toBe(true);
    expect(small.items.some((i) => i.name.includes('-user-'))).toBe(false);
  });

  it('makes the hot prod servers the top CPU answer, always running', () => {
    const servers = full.items.filter((i) => i.ci_type === 'server' && i.environment === 'prod');
    const top = [...servers].sort((a, b) => b.attributes.load!.cpu - a.attributes.load!.cpu).slice(0, 3);
    expect(top.map((s) => [s.name, s.attributes.load!.cpu, s.status])).toEqual([
      ['prod-search-api-01', 86, 'running'],
      ['prod-analytics-worker-01', 81, 'running'],
      ['prod-order-api-02', 77, 'running'],
    ]);
  });

  it('gives every item that reports a metric the load profile its synthesis reads, with a distinct noise seed', () => {
    for (const metric of METRIC_NAMES) {
      const { load } = DEMO_METRIC_EXPRESSIONS[metric];
      const types: readonly string[] = METRICS[metric].ci_types;
      const reporting = full.items.filter((i) => types.includes(i.ci_type));
      expect(reporting.length).toBeGreaterThan(0);
      for (const item of reporting)
        expect({ item: item.name, value: typeof item.attributes.load?.[load] }).toEqual({
          item: item.name,
          value: 'number',
        });
    }
    const seqs = full.items.flatMap((i) => (i.attributes.load ? [i.attributes.load.seq] : []));
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it('writes events with sequential unique ids, known kinds and severities, on existing items, in the past', () => {
    const names = new Set(full.items.map((i) => i.name));
    full.events.forEach((event, i) => {
      expect(event.external_id).toBe(`demo-${String(i + 1).padStart(5, '0')}`);
      expect(names.has(event.ci)).toBe(true);
      expect(EVENT_KINDS).toContain(event.kind);
      expect(EVENT_SEVERITIES).toContain(event.severity);
      expect(event.minutes_ago).toBeGreaterThan(0);
    });
  });

  it('gives every database a weekly maintenance for four weeks, and every hot server CPU alerts and an incident', () => {
    for (const db of full.items.filter((i) => i.ci_type === 'database')) {
      const maintenance = full.events.filter((e) => e.ci === db.name && e.kind === 'maintenance');
      expect(maintenance).toHaveLength(4);
    }
    const alerts = full.events.filter((e) => e.ci === 'prod-search-api-01' && e.kind === 'alert');
    expect(alerts).toHaveLength(3);
    expect(full.events.some((e) => e.ci === 'prod-search-api-01' && e.kind === 'incident')).toBe(true);
  });
});
