import { evaluatePlanner } from '../../../../bench/planner/eval-planner';

describe('fallback planner on the labelled OPS questions', () => {
  it('meets the targets: tools >= 90%, parameters >= 80%, no invalid plan executed', async () => {
    const [report] = (await evaluatePlanner('fallback', undefined, { set: 'old' })).parts;
    expect(report.questions).toBeGreaterThanOrEqual(40);
    expect(report.byGroup.ko.questions).toBe(report.byGroup.en.questions);
    expect(report.byGroup.none.questions).toBeGreaterThan(0);
    expect(report.byGroup.multi.questions).toBeGreaterThan(0);
    expect(report.toolAccuracy).toBeGreaterThanOrEqual(90);
    expect(report.paramAccuracy).toBeGreaterThanOrEqual(80);
    expect(report.invalidPlans).toBe(0);
    expect(report.invalidPlansExecuted).toBe(0);
  }, 60_000);
});

describe('fallback planner on the independent questions (tuning part only; the held-out part is never read in tests)', () => {
  it('chooses the labelled tools and parameters, with no invalid plan', async () => {
    const [tune] = (await evaluatePlanner('fallback', undefined, { set: 'independent', split: 'tune' }))
      .parts;
    expect(tune.split).toBe('tune');
    expect(tune.questions).toBe(232);
    expect(tune.toolAccuracy).toBeGreaterThanOrEqual(95);
    expect(tune.byGroup.ko.toolAccuracy).toBeGreaterThanOrEqual(92);
    expect(tune.byGroup.en.toolAccuracy).toBeGreaterThanOrEqual(92);
    expect(tune.paramAccuracy).toBeGreaterThanOrEqual(95);
    expect(tune.invalidPlans).toBe(0);
  }, 60_000);
});
