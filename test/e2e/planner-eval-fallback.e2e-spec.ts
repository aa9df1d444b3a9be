import { buildDist, runNode, testBackend } from '@test/support';

const RUNNER = 'dist/bench/planner/eval-planner.js';

/** Runs the built evaluation (`npm run eval:planner`) with the deterministic planner; its JSON report. */
async function evaluate(...args: string[]): Promise<{ parts: Array<Record<string, any>> }> {
  const proc = runNode(RUNNER, { LOG_LEVEL: 'error' }, [...args, '--json']);
  let stdout = '';
  proc.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await proc.exited;
  if (code !== 0) throw new Error(`eval-planner exited with ${String(code)}:\n${proc.output()}`);
  return JSON.parse(stdout) as { parts: Array<Record<string, any>> };
}

// The evaluation plans in memory (no database): it runs once, on the native pass of `npm test`.
(testBackend() === 'native' ? describe : describe.skip)(
  'npm run eval:planner: the fallback planner on the labelled questions (the built bench, not imported)',
  () => {
    beforeAll(() => buildDist());

    it('meets the targets on the old set: tools >= 90%, parameters >= 80%, no invalid plan executed', async () => {
      const [report] = (await evaluate('--set', 'old')).parts;
      expect(report.questions).toBeGreaterThanOrEqual(40);
      expect(report.byGroup.ko.questions).toBe(report.byGroup.en.questions);
      expect(report.byGroup.none.questions).toBeGreaterThan(0);
      expect(report.byGroup.multi.questions).toBeGreaterThan(0);
      expect(report.toolAccuracy).toBeGreaterThanOrEqual(90);
      expect(report.paramAccuracy).toBeGreaterThanOrEqual(80);
      expect(report.invalidPlans).toBe(0);
      expect(report.invalidPlansExecuted).toBe(0);
    }, 120_000);

    it('chooses the labelled tools and parameters on the independent questions (tuning part only; the held-out part is never read in tests)', async () => {
      const [tune] = (await evaluate('--set', 'independent', '--split', 'tune')).parts;
      expect(tune.split).toBe('tune');
      expect(tune.questions).toBe(232);
      expect(tune.toolAccuracy).toBeGreaterThanOrEqual(95);
      expect(tune.byGroup.ko.toolAccuracy).toBeGreaterThanOrEqual(92);
      expect(tune.byGroup.en.toolAccuracy).toBeGreaterThanOrEqual(92);
      expect(tune.paramAccuracy).toBeGreaterThanOrEqual(95);
      expect(tune.invalidPlans).toBe(0);
    }, 120_000);
  },
);
