import { Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { evaluatePlanner, type EvaluationOptions, type SplitReport } from './eval-planner';

/**
 * Every retired set issue 26's planner changes are judged on, in one run: the second domains (hotel, car
 * rental, veterinary hospital, parcel carrier, dental clinics, HR operations) with and without hints, the OPS sets 5-8, and OPS set 8
 * with 20 unrelated tools (robustness).
 * `node dist/bench/planner/eval-suite.js [--only name,name] [--misses name]` (after `npm run build`).
 * All are tuning data (measured once already); per-question misses are printed for `--misses <name>`.
 */
const SUITE: Array<{ name: string; options: EvaluationOptions }> = [
  {
    name: 'hotel',
    options: {
      tenantTools: ['bench/planner/domain2/tools'],
      knowledge: false,
      questionsPath: 'bench/planner/domain2/questions.json',
    },
  },
  {
    name: 'hotel-nohints',
    options: {
      tenantTools: ['bench/planner/domain2/tools'],
      knowledge: false,
      hints: false,
      questionsPath: 'bench/planner/domain2/questions.json',
    },
  },
  {
    name: 'car',
    options: {
      tenantTools: ['bench/planner/domain3/tools'],
      knowledge: false,
      questionsPath: 'bench/planner/domain3/questions.json',
    },
  },
  {
    name: 'car-nohints',
    options: {
      tenantTools: ['bench/planner/domain3/tools'],
      knowledge: false,
      hints: false,
      questionsPath: 'bench/planner/domain3/questions.json',
    },
  },
  {
    name: 'vet',
    options: {
      tenantTools: ['bench/planner/domain4/tools'],
      knowledge: false,
      questionsPath: 'bench/planner/domain4/questions.json',
    },
  },
  {
    name: 'vet-nohints',
    options: {
      tenantTools: ['bench/planner/domain4/tools'],
      knowledge: false,
      hints: false,
      questionsPath: 'bench/planner/domain4/questions.json',
    },
  },
  {
    name: 'parcel',
    options: {
      tenantTools: ['bench/planner/domain5/tools'],
      knowledge: false,
      questionsPath: 'bench/planner/domain5/questions.json',
    },
  },
  {
    name: 'parcel-nohints',
    options: {
      tenantTools: ['bench/planner/domain5/tools'],
      knowledge: false,
      hints: false,
      questionsPath: 'bench/planner/domain5/questions.json',
    },
  },
  {
    name: 'dental',
    options: {
      tenantTools: ['bench/planner/domain6/tools'],
      knowledge: false,
      questionsPath: 'bench/planner/domain6/questions.json',
    },
  },
  {
    name: 'dental-nohints',
    options: {
      tenantTools: ['bench/planner/domain6/tools'],
      knowledge: false,
      hints: false,
      questionsPath: 'bench/planner/domain6/questions.json',
    },
  },
  {
    name: 'hr',
    options: {
      tenantTools: ['bench/planner/domain7/tools'],
      knowledge: false,
      questionsPath: 'bench/planner/domain7/questions.json',
    },
  },
  {
    name: 'hr-nohints',
    options: {
      tenantTools: ['bench/planner/domain7/tools'],
      knowledge: false,
      hints: false,
      questionsPath: 'bench/planner/domain7/questions.json',
    },
  },
  ...[5, 6, 7, 8].map((n) => ({
    name: `ops${n}`,
    options: { questionsPath: `bench/planner/planner-questions-independent-${n}.json` },
  })),
  {
    name: 'ops8+unrelated20',
    options: {
      questionsPath: 'bench/planner/planner-questions-independent-8.json',
      tenantTools: ['bench/planner/unrelated20'],
    },
  },
];

function row(name: string, part: SplitReport): string {
  const group = (g: string) => (part.byGroup[g] ? `${part.byGroup[g].toolAccuracy}` : '-');
  return [
    name.padEnd(17),
    `${part.toolAccuracy}%`.padStart(6),
    `ko ${group('ko')}`.padEnd(8),
    `en ${group('en')}`.padEnd(8),
    `params ${part.paramAccuracy}%`.padEnd(14),
    `filled ${filledAccuracy(part)}%`.padEnd(13),
    `invalid ${part.invalidPlans}`.padEnd(10),
    ['single', 'multi', 'document', 'none'].map((g) => `${g} ${group(g)}`).join('  '),
  ].join(' ');
}

/** Parameter accuracy over the parameters of the tools the plan chose (how well the chosen steps are filled). */
function filledAccuracy(part: SplitReport): number {
  let correct = 0;
  let total = 0;
  for (const s of part.scores) {
    correct += s.paramsCorrect;
    total += s.paramsTotal - s.missDetails.filter((m) => !m.toolChosen).length;
  }
  return total ? Math.round((correct / total) * 1000) / 10 : 100;
}

const shown = (value: unknown) => (value === undefined ? '-' : JSON.stringify(value));

async function main(): Promise<void> {
  Logger.overrideLogger(['error']);
  const argument = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const only = argument('only')?.split(',');
  const misses = argument('misses');
  for (const { name, options } of SUITE) {
    if (only && !only.includes(name)) continue;
    const started = Date.now();
    const report = await evaluatePlanner('fallback', undefined, {
      set: 'file',
      tuningFile: true,
      ...options,
    });
    const part = report.parts[0];
    process.stdout.write(`${row(name, part)}  (${Math.round((Date.now() - started) / 1000)} s)\n`);
    if (misses !== name) continue;
    const texts = new Map(
      (
        JSON.parse(readFileSync(options.questionsPath!, 'utf8')) as {
          questions: Array<{ id: string; query: string }>;
        }
      ).questions.map((q) => [q.id, q.query]),
    );
    for (const s of part.scores.filter((q) => !q.toolsCorrect || q.misses.length)) {
      process.stdout.write(
        `  ${s.id} [${s.lang} ${s.kind}] expected [${s.expected.join(', ')}] chose [${s.chosen.join(', ')}]  ${texts.get(s.id)}\n`,
      );
      for (const m of s.missDetails)
        process.stdout.write(
          `      ${m.label}: expected ${shown(m.expected)} got ${m.toolChosen ? shown(m.actual) : '(tool not chosen)'}\n`,
        );
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
