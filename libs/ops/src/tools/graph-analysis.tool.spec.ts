import type { ToolContext } from '@app/tools';
import type { CiRelationRepository, RelationEdge } from '../data/ci-relation.repository';
import type { CiView, ConfigurationItemRepository } from '../data/configuration-item.repository';
import { findCycleEdges, GRAPH_MAX_DEPTH, GraphAnalysisTool } from './graph-analysis.tool';

/**
 * shop (application) <- part_of - api, db;  api - runs_on -> host-1;  api - depends_on -> db;
 * db - runs_on -> db-host;  api <-> auth depend on each other (a cycle); web - depends_on -> api.
 */
const ITEMS = ['shop', 'api', 'db', 'host-1', 'db-host', 'auth', 'web'];
const EDGES: RelationEdge[] = [
  ['api', 'shop', 'part_of'],
  ['db', 'shop', 'part_of'],
  ['api', 'host-1', 'runs_on'],
  ['api', 'db', 'depends_on'],
  ['db', 'db-host', 'runs_on'],
  ['api', 'auth', 'depends_on'],
  ['auth', 'api', 'depends_on'],
  ['web', 'api', 'depends_on'],
].map(([source_id, target_id, relation_type]) => ({ source_id, target_id, relation_type }));

const view = (id: string): CiView => ({
  id,
  name: `prod-${id}`,
  ci_type: 'service',
  environment: 'prod',
  status: 'running',
  owner: null,
  tags: [],
  attributes: {},
  description: null,
});

const items = {
  findByRefs: (_tenant: string, refs: string[]) =>
    Promise.resolve(ITEMS.filter((id) => refs.includes(id) || refs.includes(`prod-${id}`)).map(view)),
  findByIds: (_tenant: string, ids: string[]) => Promise.resolve(ids.map(view)),
} as unknown as ConfigurationItemRepository;

function relationsOver(edges: RelationEdge[]) {
  const asked: string[] = [];
  const relations = {
    edges: (_tenant: string, ids: string[], types: string[], direction: 'outgoing' | 'incoming') => {
      asked.push(direction);
      return Promise.resolve(
        edges.filter(
          (e) =>
            types.includes(e.relation_type) &&
            ids.includes(direction === 'outgoing' ? e.source_id : e.target_id),
        ),
      );
    },
  } as unknown as CiRelationRepository;
  return { relations, asked };
}

const context = (signal = new AbortController().signal) => ({ tenantId: 't', signal }) as ToolContext;

async function walk(input: Record<string, unknown>, edges = EDGES, signal?: AbortSignal) {
  const tool = new GraphAnalysisTool(items, relationsOver(edges).relations);
  const result = await tool.execute(context(signal), { view: 'dependency', depth: 2, ...input });
  const data = result.data as {
    nodes: Array<{ id: string; depth: number }>;
    cycles: Array<{ source: string; target: string }>;
    truncated: boolean;
    depth: number;
  };
  return {
    ...data,
    warnings: result.warnings ?? [],
    depthOf: Object.fromEntries(data.nodes.map((n) => [n.id, n.depth])),
  };
}

describe('graph_analysis', () => {
  it('dependency: follows depends_on and runs_on outwards, one hop per depth level', async () => {
    expect((await walk({ scope: 'prod-api', depth: 1 })).depthOf).toEqual({
      api: 0,
      'host-1': 1,
      db: 1,
      auth: 1,
    });
    expect((await walk({ scope: 'prod-api', depth: 2 })).depthOf).toEqual({
      api: 0,
      'host-1': 1,
      db: 1,
      auth: 1,
      'db-host': 2,
    });
  });

  it('impact: what breaks if the scope fails (its dependents, and the systems it is part of)', async () => {
    expect((await walk({ scope: 'db', view: 'impact', depth: 3 })).depthOf).toEqual({
      db: 0,
      api: 1,
      shop: 1,
      auth: 2,
      web: 2,
    });
  });

  it('composition: the parts of a system and the hosts they run on', async () => {
    expect((await walk({ scope: 'shop', view: 'composition', depth: 2 })).depthOf).toEqual({
      shop: 0,
      api: 1,
      db: 1,
      'host-1': 2,
      'db-host': 2,
    });
  });

  it('reports the edge closing a cycle once, and never visits a node twice', async () => {
    const result = await walk({ scope: 'api', depth: 4 });
    expect(result.cycles.map((c) => `${c.source}>${c.target}`)).toEqual(['prod-auth>prod-api']);
    expect(result.nodes.filter((n) => n.id === 'api')).toHaveLength(1);
  });

  it(`caps the depth at ${GRAPH_MAX_DEPTH} and says so`, async () => {
    const result = await walk({ scope: 'api', depth: 9 });
    expect(result.depth).toBe(GRAPH_MAX_DEPTH);
    expect(result.warnings).toContain(`depth capped at ${GRAPH_MAX_DEPTH}`);
  });

  it('names the scope entries it did not find, and refuses a scope with none found', async () => {
    expect((await walk({ scope: ['api', 'nope'] })).warnings).toContain('Not found: nope');
    await expect(walk({ scope: ['nope', 'nada'] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { missing: ['nope', 'nada'] },
    });
  });

  it('stops when the caller cancels', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(walk({ scope: 'api' }, EDGES, controller.signal)).rejects.toMatchObject({
      code: 'CANCELLED',
    });
  });

  it('stops adding nodes past 1000 items and marks the graph truncated', async () => {
    const fan = Array.from({ length: 1200 }, (_, i) => ({
      source_id: 'api',
      target_id: `leaf-${i}`,
      relation_type: 'depends_on',
    }));
    const result = await walk({ scope: 'api', depth: 1 }, fan);
    expect(result.truncated).toBe(true);
    expect(result.nodes).toHaveLength(1000);
    expect(result.warnings).toContain('Graph truncated at 1000 items.');
  });
});

describe('findCycleEdges', () => {
  const edge = (source_id: string, target_id: string) => ({
    source_id,
    target_id,
    relation_type: 'depends_on',
  });
  const step = (from: string, to: string) => ({ from, to, edge: edge(from, to) });

  it('finds back edges only: a diamond is not a cycle, a loop back to an ancestor is', () => {
    const diamond = [step('a', 'b'), step('a', 'c'), step('b', 'd'), step('c', 'd')];
    expect(findCycleEdges(['a'], diamond)).toEqual([]);
    expect(findCycleEdges(['a'], [...diamond, step('d', 'a')])).toEqual([edge('d', 'a')]);
  });

  it('reports a self-loop', () => {
    expect(findCycleEdges(['a'], [step('a', 'a')])).toEqual([edge('a', 'a')]);
  });
});
