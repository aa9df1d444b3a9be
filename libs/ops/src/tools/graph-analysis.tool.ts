import { INTERNAL_SOURCE_REF } from '@app/asset-registry';
import {
  BuiltinTool,
  Tool,
  ToolContext,
  ToolDefinition,
  ToolError,
  ToolErrorCode,
  ToolOutput,
} from '@app/tools';
import { CiRelationRepository, RelationEdge } from '../data/ci-relation.repository';
import { CiView, ConfigurationItemRepository } from '../data/configuration-item.repository';

export const GRAPH_MAX_DEPTH = 5;
const MAX_NODES = 1000;

type View = 'composition' | 'dependency' | 'impact';

/** Which edges each view follows, and in which direction, from the scope outwards. */
const TRAVERSALS: Record<View, Array<{ types: string[]; direction: 'outgoing' | 'incoming' }>> = {
  composition: [
    { types: ['part_of'], direction: 'incoming' },
    { types: ['runs_on'], direction: 'outgoing' },
  ],
  dependency: [{ types: ['depends_on', 'runs_on'], direction: 'outgoing' }],
  impact: [
    { types: ['depends_on', 'runs_on'], direction: 'incoming' },
    { types: ['part_of'], direction: 'outgoing' },
  ],
};

interface GraphInput {
  scope: string | string[];
  view: View;
  depth: number;
}

interface GraphNode extends Pick<CiView, 'id' | 'name' | 'ci_type' | 'environment' | 'status'> {
  depth: number;
}

export const GRAPH_ANALYSIS_TOOL: ToolDefinition = {
  name: 'graph_analysis',
  kind: 'graph_analysis',
  description:
    'Walk the relations between items from a scope (item names or ids). view "composition" (구성도): what the scope is made of ' +
    '(parts, and the hosts they run on); "dependency" (의존성): what the scope needs (depends_on, runs_on, transitively); ' +
    `"impact" (영향도): what breaks if the scope fails (its dependents and the systems it belongs to). depth is capped at ${GRAPH_MAX_DEPTH}; cycles are reported, not followed twice.`,
  input_schema: {
    type: 'object',
    properties: {
      scope: {
        description: 'Item name(s) or id(s) to start from, e.g. "prod-payment-api" or ["prod-payment-db"].',
        anyOf: [
          { type: 'string', minLength: 1 },
          { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 200 },
        ],
      },
      view: { type: 'string', enum: ['composition', 'dependency', 'impact'], default: 'dependency' },
      depth: {
        type: 'integer',
        minimum: 1,
        maximum: 10,
        default: 2,
        description: `Hops to follow (capped at ${GRAPH_MAX_DEPTH}).`,
      },
    },
    required: ['scope'],
    additionalProperties: false,
  },
  output_schema: {
    type: 'object',
    properties: {
      view: { type: 'string' },
      depth: { type: 'integer' },
      scope: { type: 'array' },
      nodes: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            ci_type: { type: 'string' },
            environment: { type: 'string' },
            status: { type: 'string' },
            depth: { type: 'integer' },
          },
          required: ['id', 'name', 'depth'],
        },
      },
      edges: { type: 'array' },
      cycles: { type: 'array' },
      truncated: { type: 'boolean' },
    },
    required: ['view', 'depth', 'scope', 'nodes', 'edges', 'cycles', 'truncated'],
  },
  has_side_effects: false,
  timeout_ms: 15_000,
  source: 'builtin',
  source_ref: INTERNAL_SOURCE_REF,
  tags: ['ops', 'graph'],
  planning_hints: {
    intent: 'analyze_graph',
    examples: {
      ko: [
        'prod-payment-db 장애 나면 영향 받는 서비스',
        'prod-order-api 가 의존하는 것들',
        'prod-shop-system 구성 요소 보여줘',
      ],
      en: [
        'what is affected if prod-payment-db goes down',
        'what does prod-order-api depend on',
        'components of prod-shop-system',
      ],
    },
    keywords: {
      ko: ['영향도', '의존성', '구성도'],
      en: ['impact', 'dependencies', 'blast radius', 'topology'],
    },
  },
};

@BuiltinTool()
export class GraphAnalysisTool implements Tool {
  readonly definition = GRAPH_ANALYSIS_TOOL;

  constructor(
    private readonly items: ConfigurationItemRepository,
    private readonly relations: CiRelationRepository,
  ) {}

  async execute(context: ToolContext, raw: Record<string, unknown>): Promise<ToolOutput> {
    const input = raw as unknown as GraphInput;
    const refs = Array.isArray(input.scope) ? input.scope : [input.scope];
    const roots = await this.items.findByRefs(context.tenantId, refs);
    const found = new Set(roots.flatMap((r) => [r.id, r.name]));
    const missing = refs.filter((r) => !found.has(r));
    if (!roots.length)
      throw new ToolError(ToolErrorCode.INVALID_INPUT, `No item matches scope ${refs.join(', ')}.`, {
        missing,
      });
    const warnings = missing.length ? [`Not found: ${missing.join(', ')}`] : [];
    const depth = Math.min(input.depth, GRAPH_MAX_DEPTH);
    if (depth < input.depth) warnings.push(`depth capped at ${GRAPH_MAX_DEPTH}`);

    const depthOf = new Map(roots.map((r) => [r.id, 0]));
    const edges = new Map<string, RelationEdge>();
    const walked: Array<{ from: string; to: string; edge: RelationEdge }> = [];
    let frontier = roots.map((r) => r.id);
    let truncated = false;
    for (let level = 1; level <= depth && frontier.length && !truncated; level++) {
      const next: string[] = [];
      for (const { types, direction } of TRAVERSALS[input.view]) {
        if (context.signal.aborted)
          throw new ToolError(ToolErrorCode.CANCELLED, 'graph_analysis was cancelled.');
        for (const edge of await this.relations.edges(context.tenantId, frontier, types, direction)) {
          edges.set(`${edge.source_id}>${edge.target_id}>${edge.relation_type}`, edge);
          const from = direction === 'outgoing' ? edge.source_id : edge.target_id;
          const neighbour = direction === 'outgoing' ? edge.target_id : edge.source_id;
          walked.push({ from, to: neighbour, edge });
          if (!depthOf.has(neighbour)) {
            if (depthOf.size >= MAX_NODES) {
              truncated = true;
              continue;
            }
            depthOf.set(neighbour, level);
            next.push(neighbour);
          }
        }
      }
      frontier = next;
    }
    if (truncated) warnings.push(`Graph truncated at ${MAX_NODES} items.`);
    const cycles = findCycleEdges(
      roots.map((r) => r.id),
      walked,
    );

    const views = await this.items.findByIds(context.tenantId, [...depthOf.keys()]);
    const nodes: GraphNode[] = views
      .map((v) => ({
        id: v.id,
        name: v.name,
        ci_type: v.ci_type,
        environment: v.environment,
        status: v.status,
        depth: depthOf.get(v.id)!,
      }))
      .sort((a, b) => a.depth - b.depth || a.name.localeCompare(b.name));
    const names = new Map(views.map((v) => [v.id, v.name]));
    const named = (id: string) => names.get(id) ?? id;
    return {
      data: {
        view: input.view,
        depth,
        scope: roots.map((r) => ({ id: r.id, name: r.name })),
        nodes,
        edges: [...edges.values()].map((e) => ({
          ...e,
          source: named(e.source_id),
          target: named(e.target_id),
        })),
        cycles: cycles.map((e) => ({ ...e, source: named(e.source_id), target: named(e.target_id) })),
        truncated,
      },
      warnings,
    };
  }
}

/** Edges that close a cycle in the walked subgraph (back edges of a depth-first search from the roots). */
export function findCycleEdges(
  roots: string[],
  walked: Array<{ from: string; to: string; edge: RelationEdge }>,
): RelationEdge[] {
  const adjacency = new Map<string, Array<{ to: string; edge: RelationEdge }>>();
  for (const step of walked) {
    const list = adjacency.get(step.from) ?? [];
    list.push(step);
    adjacency.set(step.from, list);
  }
  const state = new Map<string, 'open' | 'done'>();
  const found = new Map<string, RelationEdge>();
  const visit = (node: string): void => {
    state.set(node, 'open');
    for (const { to, edge } of adjacency.get(node) ?? []) {
      const s = state.get(to);
      if (s === 'open') found.set(`${edge.source_id}>${edge.target_id}>${edge.relation_type}`, edge);
      else if (s === undefined) visit(to);
    }
    state.set(node, 'done');
  };
  for (const root of roots) if (!state.has(root)) visit(root);
  return [...found.values()];
}
