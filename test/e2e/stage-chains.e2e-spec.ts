import { DemoDataService } from '@app/ops';
import { startTestApp, TestApp, testBackend } from '@test/support';

/**
 * The stage executor's seed behaviours over HTTP (seed 003 "Process Results", seed 004's plan shape):
 * output mapping, several stages in one run, published stage assets run by name, the seed plan.
 */
describe(`stages: output mapping, chains, published stages, the seed plan (${testBackend()})`, () => {
  let t: TestApp;
  let admin: string;
  let operator: string;
  const execute = (body: unknown, key = operator) => t.request('POST', '/ops/stage/execute', { key, body });

  beforeAll(async () => {
    t = await startTestApp();
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'stage-chains' } });
    admin = created.body.secret as string;
    operator = (await t.request('POST', '/api/keys', { key: admin, body: { name: 'ci', role: 'operator' } }))
      .body.secret;
    await t.app.get(DemoDataService).load(created.body.tenant.id, { scale: 'small', now: new Date() });
  }, 400_000);
  afterAll(() => t.close());

  const findProdServers = {
    id: 'servers',
    tool_name: 'ci_lookup',
    input: { filters: { environment: 'prod', ci_type: 'server' }, limit: 3 },
  };

  it('maps step results to the stage output', async () => {
    const res = await execute({
      stage_name: 'prod-cpu',
      tools: [
        findProdServers,
        {
          id: 'cpu',
          tool_name: 'metric_query',
          input: {
            metric_name: 'cpu_usage',
            agg: 'avg',
            time_range: { relative: 'last_24h' },
            ci_ids: { $ref: 'servers.data.items[*].id' },
          },
        },
      ],
      output_mapping: {
        names: { $ref: 'servers.data.items.name' },
        cpu: { $ref: 'cpu.data.groups' },
        missing: { $ref: 'cpu.data.nope' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    const names = res.body.results[0].result.data.items.map((i: { name: string }) => i.name);
    expect(names).toHaveLength(3);
    expect(res.body.output.names).toEqual(names);
    expect(res.body.output.cpu.map((g: { ci_name: string }) => g.ci_name).sort()).toEqual([...names].sort());
    // An output reference that does not resolve is null with a warning, not a failed run.
    expect(res.body.output.missing).toBeNull();
    expect(res.body.warnings).toEqual([
      expect.stringMatching(/output "missing": cpu.data.nope: no field "nope"/),
    ]);
    expect(res.body.results[1].input.ci_ids).toHaveLength(3);
    const stored = await t.request('GET', `/ops/stage/runs/${res.body.run_id}`, { key: operator });
    expect(stored.body.output).toEqual(res.body.output);
  });

  it("runs several stages in order, a later one reading an earlier one's output and the run's params", async () => {
    const res = await execute({
      stage_name: 'servers-then-cpu',
      params: { metric: 'cpu_usage' },
      stages: [
        {
          stage_name: 'find',
          tools: [findProdServers],
          output_mapping: { ids: { $ref: 'servers.data.items.id' } },
        },
        {
          stage_name: 'measure',
          tools: [
            {
              id: 'cpu',
              tool_name: 'metric_query',
              input: {
                metric_name: { $ref: 'params.metric' },
                agg: 'max',
                time_range: { relative: 'last_24h' },
                ci_ids: { $ref: 'find.output.ids' },
              },
            },
          ],
          output_mapping: { top: { $ref: 'cpu.data.groups[0].ci_name' } },
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      stage_name: 'servers-then-cpu',
      status: 'ok',
      summary: { total: 2, succeeded: 2 },
    });
    expect(
      res.body.stages.map((s: { stage_name: string; status: string }) => [s.stage_name, s.status]),
    ).toEqual([
      ['find', 'ok'],
      ['measure', 'ok'],
    ]);
    expect(res.body.stages[0].output.ids).toHaveLength(3);
    expect(res.body.results.map((r: { stage: string; id: string }) => `${r.stage}/${r.id}`)).toEqual([
      'find/servers',
      'measure/cpu',
    ]);
    expect(res.body.results[1].input).toMatchObject({
      metric_name: 'cpu_usage',
      ci_ids: res.body.stages[0].output.ids,
    });
    expect(res.body.output.top).toEqual(expect.any(String));
  });

  it('stops at a failed stage by default and goes on when the stage says continue', async () => {
    const broken = {
      stage_name: 'broken',
      tools: [{ tool_name: 'metric_query', input: { metric_name: 'no_such_metric' } }],
    };
    const after = { stage_name: 'after', tools: [findProdServers] };
    const stopped = await execute({ stages: [broken, after] });
    expect(stopped.status).toBe(200);
    expect(stopped.body.status).toBe('failed');
    expect(stopped.body.stages.map((s: { status: string }) => s.status)).toEqual(['failed', 'skipped']);
    expect(stopped.body.results[1].result.error_details).toMatchObject({
      code: 'STAGE_NOT_RUN',
      stopped_by: 'broken',
    });
    const continued = await execute({ stages: [{ ...broken, on_failure: 'continue' }, after] });
    expect(continued.body.status).toBe('partial');
    expect(continued.body.stages.map((s: { status: string }) => s.status)).toEqual(['failed', 'ok']);
  });

  it('refuses an ambiguous or miswired request with every problem, before anything runs', async () => {
    const both = await execute({
      stage_name: 'x',
      tools: [findProdServers],
      stages: [{ stage_name: 'y', tools: [findProdServers] }],
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('STAGE_INVALID');
    const miswired = await execute({
      stages: [
        { stage_name: 'a', tools: [findProdServers], output_mapping: { x: { $ref: 'ghost.data' } } },
        {
          stage_name: 'b',
          tools: [{ tool_name: 'ci_lookup', input: { ids: { $ref: 'later.output.ids' } } }],
        },
        { stage_name: 'later', tools: [{ tool_name: 'nope' }] },
      ],
    });
    expect(miswired.status).toBe(400);
    expect(miswired.body.details.problems.map((p: { message: string }) => p.message)).toEqual([
      'stage "a": output_mapping refers to unknown step "ghost"',
      'stage "b": step "step1" refers to unknown step "later"',
      'stage "later": step "step1": unknown tool "nope"',
    ]);
  });

  it('publishes a stage asset (checked like a tool: tools exist, references resolve) and runs it by name', async () => {
    const content = {
      params_schema: {
        type: 'object',
        required: ['environment'],
        additionalProperties: false,
        properties: {
          environment: { enum: ['prod', 'staging', 'dev'] },
          limit: { type: 'integer', default: 2 },
        },
      },
      stages: [
        {
          stage_name: 'find',
          tools: [
            {
              id: 'items',
              tool_name: 'ci_lookup',
              input: {
                filters: { environment: { $ref: 'params.environment' } },
                limit: { $ref: 'params.limit' },
              },
            },
          ],
          output_mapping: { names: { $ref: 'items.data.items.name' } },
        },
      ],
    };
    const bad = await t.request('POST', '/api/assets', {
      key: admin,
      body: {
        asset_type: 'stage',
        name: 'broken-stage',
        content: { stages: [{ stage_name: 's', tools: [{ tool_name: 'nope' }] }] },
      },
    });
    expect(bad.status).toBe(201);
    const refused = await t.request('POST', `/api/assets/${bad.body.id}/publish`, {
      key: admin,
      body: {},
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: 'ASSET_CONTRACT_INVALID',
      details: { problems: ['stage "s": step "step1": unknown tool "nope"'] },
    });

    const created = await t.request('POST', '/api/assets', {
      key: admin,
      body: { asset_type: 'stage', name: 'items-by-env', content },
    });
    expect(created.status).toBe(201);
    expect(
      (await t.request('POST', `/api/assets/${created.body.id}/publish`, { key: admin, body: {} })).status,
    ).toBe(200);

    const run = await execute({ stage: 'items-by-env', params: { environment: 'staging' } });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ stage_name: 'items-by-env', status: 'ok' });
    expect(run.body.results[0].input).toEqual({ filters: { environment: 'staging' }, limit: 2 });
    expect(run.body.output.names).toHaveLength(2);
    expect(run.body.output.names.every((n: string) => n.startsWith('staging-'))).toBe(true);

    const invalid = await execute({ stage: 'items-by-env', params: { environment: 'moon' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.details.problems[0]).toMatchObject({ problem: 'invalid_params' });
    const unknown = await execute({ stage: 'no-such-stage' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('STAGE_NOT_FOUND');
  });

  it("executes the seed 004 plan (section 6.3) and answers the seed's ExecuteOutput", async () => {
    const end = new Date();
    const start = new Date(end.getTime() - 7 * 86_400_000);
    const res = await execute({
      plan: {
        intent: 'QueryMetrics',
        mode: 'complete',
        primary: {
          keywords: ['server', 'prod'],
          filters: { environment: 'prod' },
          limit: 5,
          tool_type: 'ci_lookup',
        },
        metric: {
          metric_name: 'cpu_usage',
          agg: 'avg',
          time_range: { start: start.toISOString(), end: end.toISOString() },
          mode: 'metric',
          scope: 'server',
          tool_type: 'metric_query',
        },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.stage_name).toBe('plan:QueryMetrics');
    expect(res.body.execute_output.primary_results).toMatchObject({ success: true });
    expect(res.body.execute_output.primary_results.data.items.length).toBeGreaterThan(0);
    expect(res.body.execute_output.metric_results).toMatchObject({ success: true });
    expect(res.body.execute_output.graph_results).toBeNull();
    // Fields the tool does not take are reported, not sent (the tool would refuse them).
    expect(res.body.warnings).toContain('plan.metric.scope is not an input of metric_query: not sent.');
    expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(['primary', 'metric']);
  });
});
