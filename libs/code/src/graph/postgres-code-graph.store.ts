import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { CodeSymbolView, EdgeKind, RelatedSymbol } from '../code.types';
import { CodeGraphStore, FileGraphInput, FileGraphWrite, GraphEdgeView } from './code-graph.store';
import { buildFileGraph, MODULE_SUFFIXES } from './graph-edges.util';

const NODE_COLUMNS = `n.id, n.repository_id, n.kind, n.subkind, n.name, n.qualified_name, n.path, n.signature,
  n.start_line, n.end_line, n.doc_comment, n.language, n.exported`;

type NodeRecord = CodeSymbolView;

/** `ARRAY[base, base || '.ts', ...]`: the file paths an import's extensionless path may name. */
const CANDIDATES = (column: string) =>
  `ARRAY[${MODULE_SUFFIXES.map((suffix) => (suffix ? `${column} || '${suffix}'` : column)).join(', ')}]`;

/**
 * The code graph in PostgreSQL: nodes and edges tables, recursive CTEs for transitive queries.
 * Tenant isolation is row-level security (every call runs in the caller's tenant scope).
 */
@Injectable()
export class PostgresCodeGraphStore extends CodeGraphStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async replaceFile(input: FileGraphInput): Promise<FileGraphWrite> {
    const graph = buildFileGraph(input.path, input.language, input.parsed, input.lineCount);
    return this.dataSource.transaction(async (em) => {
      // One writer per repository at a time, so resolution sees a consistent set of nodes.
      await em.query(`SELECT id FROM code_repositories WHERE id = $1 FOR UPDATE`, [input.repositoryId]);
      await em.query(`DELETE FROM code_nodes WHERE repository_id = $1 AND path = $2`, [
        input.repositoryId,
        input.path,
      ]);
      await em.query(
        `INSERT INTO code_nodes (id, tenant_id, repository_id, path, kind, subkind, name, qualified_name, signature,
                                 start_line, end_line, doc_comment, language, exported, parent_id)
         SELECT x.id, $1, $2, x.path, x.kind, x.subkind, x.name, x.qualified_name, x.signature, x.start_line,
                x.end_line, x.doc_comment, x.language, x.exported, x.parent_id
         FROM jsonb_to_recordset($3::jsonb) AS x(id uuid, path text, kind text, subkind text, name text,
              qualified_name text, signature text, start_line int, end_line int, doc_comment text, language text,
              exported boolean, parent_id uuid)`,
        [input.tenantId, input.repositoryId, JSON.stringify(graph.nodes)],
      );
      const modules = [...new Set(graph.edges.flatMap((e) => (e.module ? [e.module] : [])))];
      const moduleIds = new Map<string, string>();
      if (modules.length) {
        await em.query(
          `INSERT INTO code_nodes (tenant_id, repository_id, kind, subkind, name, qualified_name)
           SELECT $1, $2, 'Module', 'package', m, m FROM unnest($3::text[]) AS m
           ON CONFLICT (repository_id, qualified_name) WHERE kind = 'Module' DO NOTHING`,
          [input.tenantId, input.repositoryId, modules],
        );
        const rows: Array<{ id: string; qualified_name: string }> = await em.query(
          `SELECT id, qualified_name FROM code_nodes
           WHERE repository_id = $1 AND kind = 'Module' AND qualified_name = ANY($2)`,
          [input.repositoryId, modules],
        );
        for (const row of rows) moduleIds.set(row.qualified_name, row.id);
      }
      const edges = graph.edges.map(({ module, ...edge }) =>
        module ? { ...edge, target_id: moduleIds.get(module) ?? null, resolution: 'same_file' } : edge,
      );
      await em.query(
        `INSERT INTO code_edges (tenant_id, repository_id, source_id, source_path, kind, target_id, target_name,
                                 target_path, receiver, resolution, line)
         SELECT $1, $2, x.source_id, x.source_path, x.kind, x.target_id, x.target_name, x.target_path, x.receiver,
                x.resolution, x.line
         FROM jsonb_to_recordset($3::jsonb) AS x(source_id uuid, source_path text, kind text, target_id uuid,
              target_name text, target_path text, receiver text, resolution text, line int)`,
        [input.tenantId, input.repositoryId, JSON.stringify(edges)],
      );
      // A name that was unique in the repository may not be any more: re-resolve those edges.
      const names = [...new Set(input.parsed.symbols.filter((s) => s.parent === null).map((s) => s.name))];
      if (names.length) {
        await em.query(
          `UPDATE code_edges SET target_id = NULL, resolution = NULL
           WHERE repository_id = $1 AND resolution = 'unique' AND target_name = ANY($2)`,
          [input.repositoryId, names],
        );
      }
      await this.resolve(em, input.repositoryId);
      return { nodes: graph.nodes.length, symbolIds: graph.symbolIds, fileNodeId: graph.fileNodeId };
    });
  }

  /**
   * Resolves the repository's unresolved edges: imports to the file they name, imported names to
   * the top-level symbol of that file, then bare names to the only top-level symbol of the
   * repository with that name. Anything else stays unresolved with its name.
   */
  private async resolve(em: EntityManager, repositoryId: string): Promise<void> {
    await em.query(
      `WITH m AS (
         SELECT DISTINCT ON (e.id) e.id AS edge_id, n.id AS node_id
         FROM code_edges e
         JOIN code_nodes n ON n.repository_id = e.repository_id AND n.kind = 'File'
                          AND n.path = ANY(${CANDIDATES('e.target_path')})
         WHERE e.repository_id = $1 AND e.kind = 'IMPORTS' AND e.target_id IS NULL AND e.target_path IS NOT NULL
         ORDER BY e.id, array_position(${CANDIDATES('e.target_path')}, n.path))
       UPDATE code_edges e SET target_id = m.node_id, resolution = 'import' FROM m WHERE e.id = m.edge_id`,
      [repositoryId],
    );
    await em.query(
      `WITH m AS (
         SELECT DISTINCT ON (e.id) e.id AS edge_id, n.id AS node_id
         FROM code_edges e
         JOIN code_nodes n ON n.repository_id = e.repository_id AND n.kind IN ('Function', 'Class')
                          AND n.parent_id IS NULL AND n.name = e.target_name
                          AND n.path = ANY(${CANDIDATES('e.target_path')})
         WHERE e.repository_id = $1 AND e.kind IN ('CALLS', 'EXTENDS', 'IMPLEMENTS') AND e.target_id IS NULL
           AND e.target_path IS NOT NULL AND e.resolution IS DISTINCT FROM 'external'
           AND (e.receiver IS NULL OR e.receiver = '*')
         ORDER BY e.id, array_position(${CANDIDATES('e.target_path')}, n.path))
       UPDATE code_edges e SET target_id = m.node_id, resolution = 'import' FROM m WHERE e.id = m.edge_id`,
      [repositoryId],
    );
    await em.query(
      `WITH m AS (
         SELECT DISTINCT ON (e.id) e.id AS edge_id, n.id AS node_id
         FROM code_edges e
         JOIN code_nodes c ON c.repository_id = e.repository_id AND c.kind = 'Class' AND c.parent_id IS NULL
                          AND c.name = e.receiver AND c.path = ANY(${CANDIDATES('e.target_path')})
         JOIN code_nodes n ON n.parent_id = c.id AND n.name = e.target_name
         WHERE e.repository_id = $1 AND e.kind = 'CALLS' AND e.target_id IS NULL AND e.target_path IS NOT NULL
           AND e.receiver IS NOT NULL AND e.receiver NOT IN ('*', 'this', 'super')
           AND e.resolution IS DISTINCT FROM 'external'
         ORDER BY e.id, array_position(${CANDIDATES('e.target_path')}, c.path))
       UPDATE code_edges e SET target_id = m.node_id, resolution = 'import' FROM m WHERE e.id = m.edge_id`,
      [repositoryId],
    );
    await em.query(
      `WITH u AS (
         SELECT name, (array_agg(id))[1] AS id FROM code_nodes
         WHERE repository_id = $1 AND kind IN ('Function', 'Class') AND parent_id IS NULL
         GROUP BY name HAVING count(*) = 1)
       UPDATE code_edges e SET target_id = u.id, resolution = 'unique'
       FROM u
       WHERE e.repository_id = $1 AND e.kind IN ('CALLS', 'EXTENDS', 'IMPLEMENTS') AND e.target_id IS NULL
         AND e.receiver IS NULL AND e.resolution IS DISTINCT FROM 'external' AND e.target_name = u.name`,
      [repositoryId],
    );
  }

  async deleteFile(repositoryId: string, path: string): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      await em.query(`SELECT id FROM code_repositories WHERE id = $1 FOR UPDATE`, [repositoryId]);
      const [, count]: [unknown[], number] = await em.query(
        `DELETE FROM code_nodes WHERE repository_id = $1 AND path = $2`,
        [repositoryId, path],
      );
      await this.resolve(em, repositoryId);
      return count;
    });
  }

  async setDocuments(entries: Array<{ nodeId: string; documentId: string }>): Promise<void> {
    if (entries.length === 0) return;
    await this.dataSource.query(
      `UPDATE code_nodes n SET document_id = x.document_id
       FROM jsonb_to_recordset($1::jsonb) AS x(node_id uuid, document_id uuid) WHERE n.id = x.node_id`,
      [JSON.stringify(entries.map((e) => ({ node_id: e.nodeId, document_id: e.documentId })))],
    );
  }

  async documentsOfFile(repositoryId: string, path: string): Promise<string[]> {
    const rows: Array<{ document_id: string }> = await this.dataSource.query(
      `SELECT document_id FROM code_nodes WHERE repository_id = $1 AND path = $2 AND document_id IS NOT NULL`,
      [repositoryId, path],
    );
    return rows.map((r) => r.document_id);
  }

  async findSymbols(repositoryIds: string[], query: string, limit: number): Promise<CodeSymbolView[]> {
    if (repositoryIds.length === 0) return [];
    const needle = query.trim().toLowerCase();
    return this.dataSource.query(
      `SELECT ${NODE_COLUMNS} FROM code_nodes n
       WHERE n.repository_id = ANY($1) AND n.kind IN ('Class', 'Function', 'File')
         AND (lower(n.name) LIKE '%' || $2 || '%' OR lower(n.qualified_name) LIKE '%' || $2 || '%')
       ORDER BY (lower(n.name) = $2) DESC, (lower(n.name) LIKE $2 || '%') DESC,
                (n.kind = 'File') ASC, length(n.qualified_name), n.path, n.start_line
       LIMIT $3`,
      [repositoryIds, needle.replace(/[%_\\]/g, (c) => `\\${c}`), limit],
    );
  }

  async getSymbol(id: string): Promise<CodeSymbolView | null> {
    const rows: NodeRecord[] = await this.dataSource.query(
      `SELECT ${NODE_COLUMNS} FROM code_nodes n WHERE n.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async fileNode(repositoryId: string, path: string): Promise<CodeSymbolView | null> {
    const rows: NodeRecord[] = await this.dataSource.query(
      `SELECT ${NODE_COLUMNS} FROM code_nodes n WHERE n.repository_id = $1 AND n.path = $2 AND n.kind = 'File'`,
      [repositoryId, path],
    );
    return rows[0] ?? null;
  }

  async symbolsByDocument(documentIds: string[]): Promise<Map<string, CodeSymbolView>> {
    if (documentIds.length === 0) return new Map();
    const rows: Array<NodeRecord & { document_id: string }> = await this.dataSource.query(
      `SELECT ${NODE_COLUMNS}, n.document_id FROM code_nodes n WHERE n.document_id = ANY($1)`,
      [documentIds],
    );
    return new Map(rows.map(({ document_id, ...node }) => [document_id, node]));
  }

  private async related(sql: string, params: unknown[]): Promise<RelatedSymbol[]> {
    const rows: Array<
      NodeRecord & { related_name: string; depth: number; line: number | null; node_id: string | null }
    > = await this.dataSource.query(sql, params);
    return rows.map((row) => ({
      symbol: row.node_id
        ? {
            id: row.id,
            repository_id: row.repository_id,
            kind: row.kind,
            subkind: row.subkind,
            name: row.name,
            qualified_name: row.qualified_name,
            path: row.path,
            signature: row.signature,
            start_line: row.start_line,
            end_line: row.end_line,
            doc_comment: row.doc_comment,
            language: row.language,
            exported: row.exported,
          }
        : null,
      name: row.node_id ? row.qualified_name : row.related_name,
      depth: Number(row.depth),
      line: row.line,
    }));
  }

  callers(id: string, depth: number, limit: number): Promise<RelatedSymbol[]> {
    return this.related(
      `WITH RECURSIVE up(node_id, depth, line) AS (
         SELECT e.source_id, 1, e.line FROM code_edges e WHERE e.target_id = $1 AND e.kind = 'CALLS'
         UNION
         SELECT e.source_id, up.depth + 1, e.line FROM code_edges e JOIN up ON e.target_id = up.node_id
         WHERE e.kind = 'CALLS' AND up.depth < $2)
       SELECT ${NODE_COLUMNS}, n.id AS node_id, n.name AS related_name, r.depth, r.line
       FROM (SELECT node_id, min(depth) AS depth, min(line) AS line FROM up GROUP BY node_id) r
       JOIN code_nodes n ON n.id = r.node_id
       WHERE r.node_id <> $1
       ORDER BY r.depth, n.path, n.start_line LIMIT $3`,
      [id, depth, limit],
    );
  }

  callees(id: string, depth: number, limit: number): Promise<RelatedSymbol[]> {
    return this.related(
      `WITH RECURSIVE down(node_id, name, depth, line) AS (
         SELECT e.target_id, e.target_name, 1, e.line FROM code_edges e WHERE e.source_id = $1 AND e.kind = 'CALLS'
         UNION
         SELECT e.target_id, e.target_name, down.depth + 1, e.line FROM code_edges e JOIN down ON e.source_id = down.node_id
         WHERE e.kind = 'CALLS' AND down.depth < $2)
       SELECT ${NODE_COLUMNS}, r.node_id, r.name AS related_name, r.depth, r.line
       FROM (SELECT node_id, name, min(depth) AS depth, min(line) AS line FROM down
             WHERE node_id IS DISTINCT FROM $1 GROUP BY node_id, name) r
       LEFT JOIN code_nodes n ON n.id = r.node_id
       ORDER BY r.depth, r.line, r.node_id IS NULL, r.name LIMIT $3`,
      [id, depth, limit],
    );
  }

  impact(ids: string[], depth: number, limit: number): Promise<RelatedSymbol[]> {
    return this.related(
      `WITH RECURSIVE seed AS (
         SELECT id FROM code_nodes WHERE id = ANY($1::uuid[])
         UNION
         SELECT f.id FROM code_nodes s JOIN code_nodes f ON f.repository_id = s.repository_id AND f.kind = 'File'
                                                    AND f.path = s.path
         WHERE s.id = ANY($1::uuid[]) AND s.exported),
       up(node_id, depth, line) AS (
         SELECT e.source_id, 1, e.line FROM code_edges e JOIN seed ON e.target_id = seed.id
         WHERE e.kind IN ('CALLS', 'EXTENDS', 'IMPLEMENTS', 'IMPORTS')
         UNION
         SELECT e.source_id, up.depth + 1, e.line FROM code_edges e JOIN up ON e.target_id = up.node_id
         WHERE e.kind IN ('CALLS', 'EXTENDS', 'IMPLEMENTS') AND up.depth < $2)
       SELECT ${NODE_COLUMNS}, n.id AS node_id, n.name AS related_name, r.depth, r.line
       FROM (SELECT node_id, min(depth) AS depth, min(line) AS line FROM up GROUP BY node_id) r
       JOIN code_nodes n ON n.id = r.node_id
       WHERE NOT r.node_id = ANY($1::uuid[])
       ORDER BY r.depth, n.path, n.start_line LIMIT $3`,
      [ids, depth, limit],
    );
  }

  async path(fromId: string, toId: string, maxDepth: number): Promise<CodeSymbolView[] | null> {
    const rows: Array<{ path: string[] }> = await this.dataSource.query(
      `WITH RECURSIVE walk(node_id, path) AS (
         SELECT $1::uuid, ARRAY[$1::uuid]
         UNION ALL
         SELECT e.target_id, walk.path || e.target_id FROM walk
         JOIN code_edges e ON e.source_id = walk.node_id AND e.kind = 'CALLS' AND e.target_id IS NOT NULL
         WHERE NOT e.target_id = ANY(walk.path) AND cardinality(walk.path) <= $3 AND walk.node_id <> $2::uuid)
       SELECT path FROM walk WHERE node_id = $2::uuid ORDER BY cardinality(path) LIMIT 1`,
      [fromId, toId, maxDepth],
    );
    if (!rows[0]) return null;
    const nodes: NodeRecord[] = await this.dataSource.query(
      `SELECT ${NODE_COLUMNS} FROM code_nodes n WHERE n.id = ANY($1::uuid[])`,
      [rows[0].path],
    );
    const byId = new Map(nodes.map((n) => [n.id, n]));
    return rows[0].path.map((id) => byId.get(id)!).filter(Boolean);
  }

  async outgoing(id: string, kinds: EdgeKind[]): Promise<GraphEdgeView[]> {
    const source = await this.getSymbol(id);
    if (!source) return [];
    const rows: Array<
      NodeRecord & { edge_kind: EdgeKind; target_name: string; line: number | null; target: string | null }
    > = await this.dataSource.query(
      `SELECT e.kind AS edge_kind, e.target_name, e.line, e.target_id AS target, ${NODE_COLUMNS}
         FROM code_edges e LEFT JOIN code_nodes n ON n.id = e.target_id
         WHERE e.source_id = $1 AND e.kind = ANY($2) ORDER BY e.line, e.id`,
      [id, kinds],
    );
    return rows.map(({ edge_kind, target_name, line, target, ...node }) => ({
      kind: edge_kind,
      source,
      target: target ? node : null,
      target_name,
      line,
    }));
  }

  edgesOf(
    repositoryId: string,
    kinds: EdgeKind[],
  ): Promise<
    Array<{
      kind: EdgeKind;
      source_path: string;
      line: number | null;
      target_path: string | null;
      target_name: string;
      resolved: boolean;
    }>
  > {
    return this.dataSource.query(
      `SELECT e.kind, e.source_path, e.line, n.path AS target_path,
              COALESCE(n.name, e.target_name) AS target_name, e.target_id IS NOT NULL AS resolved
       FROM code_edges e LEFT JOIN code_nodes n ON n.id = e.target_id
       WHERE e.repository_id = $1 AND e.kind = ANY($2)`,
      [repositoryId, kinds],
    );
  }
}
