import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDist, FakeLlmServer, runNode, testBackend, type RecordedLlmRequest } from '@test/support';

const RUNNER = 'dist/bench/planner/eval-planner.js';
const NOW = '2026-11-22T09:00:00Z';
const QUESTIONS = {
  now: NOW,
  questions: [
    {
      id: 'l1',
      lang: 'en',
      kind: 'single',
      query: 'list the staging databases',
      tools: ['ci_lookup'],
      params: { 'ci_lookup.filters.environment': 'staging' },
    },
    {
      id: 'l2',
      lang: 'ko',
      kind: 'single',
      query: '어제 prod 서버 CPU 평균',
      tools: ['metric_query'],
      params: { 'metric_query.metric_name': 'cpu_usage' },
    },
    {
      id: 'l3',
      lang: 'en',
      kind: 'document',
      query: 'where is the on-call escalation policy documented?',
      tools: ['document_search'],
      params: {},
    },
  ],
};

/** The question of a planning request (the last user message names it). */
function questionOf(request: RecordedLlmRequest): string {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: string }>;
  return messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
}

/** Plans like a model would for the first two questions; answers 500 for the third (the planner falls back). */
function reply(request: RecordedLlmRequest) {
  const question = questionOf(request);
  if (question.includes(QUESTIONS.questions[0].query))
    return FakeLlmServer.json({
      intent: 'lookup_ci',
      steps: [
        {
          id: 's1',
          tool_type: 'ci_lookup',
          parameters: { keywords: [], filters: { environment: 'staging', ci_type: 'database' }, limit: 20 },
        },
      ],
    });
  if (question.includes(QUESTIONS.questions[1].query))
    return FakeLlmServer.json({
      intent: 'query_metrics',
      steps: [
        {
          id: 's1',
          tool_type: 'metric_query',
          parameters: {
            metric_name: 'cpu_usage',
            agg: 'avg',
            time_range: { start: '2026-11-21T00:00:00Z', end: '2026-11-22T00:00:00Z' },
            ci_filter: { environment: 'prod', ci_type: 'server' },
          },
        },
      ],
    });
  return FakeLlmServer.error(500);
}

describe(`npm run eval:planner -- --llm against an OpenAI-compatible endpoint (${testBackend()})`, () => {
  let llm: FakeLlmServer;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    buildDist();
    llm = await FakeLlmServer.start();
    dir = mkdtempSync(path.join(os.tmpdir(), 'ops-test-eval-llm-'));
    file = path.join(dir, 'questions.json');
    writeFileSync(file, JSON.stringify(QUESTIONS));
  });
  afterAll(async () => {
    await llm?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (env: Record<string, string>, ...args: string[]) => {
    const proc = runNode(RUNNER, { LOG_LEVEL: 'error', ...env }, args);
    let stdout = '';
    proc.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await proc.exited;
    return { code, stdout, output: proc.output() };
  };

  it('plans every question with the model, grades it, and counts the questions the fallback planned', async () => {
    llm.setDefault(reply);
    const { code, stdout, output } = await run(
      {
        LLM_BASE_URL: llm.url,
        LLM_API_KEY: 'test-key',
        LLM_MODEL: 'fake-model',
        LLM_MAX_RETRIES: '0',
        LLM_RETRY_BASE_DELAY_MS: '10',
      },
      '--llm',
      '--questions',
      file,
      '--json',
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ mode: 'llm', model: 'fake-model', set: 'file', knowledge: true });
    const [part] = report.parts;
    expect(part).toMatchObject({ split: 'external', questions: 3, invalidPlans: 0, invalidPlansExecuted: 0 });
    // The model was asked for each question; the third failed and the deterministic planner took over.
    const asked = llm.chatRequests.map(questionOf);
    for (const q of QUESTIONS.questions) expect(asked.some((text) => text.includes(q.query))).toBe(true);
    expect(part.fellBack).toBe(1);
    // The two model plans are right (tools and parameters); the graded figures come from them.
    expect(part.byGroup.ko).toMatchObject({ questions: 1, toolAccuracy: 100, paramAccuracy: 100 });
    expect(part.byGroup.single).toMatchObject({ questions: 2, toolAccuracy: 100, paramAccuracy: 100 });
    // A question file is held out: aggregates only, nothing per question.
    expect(part.scores).toEqual([]);
    expect(part.confusion).toEqual({});
    expect(output).not.toMatch(/"id":\s*"l1"|staging databases/);
  });

  it('refuses --llm without an endpoint', async () => {
    const { code, output } = await run({}, '--llm', '--questions', file);
    expect(code).toBe(1);
    expect(output).toMatch(/--llm needs LLM_BASE_URL/);
  });
});
