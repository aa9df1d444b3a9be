import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface RelationEdge {
  source_id: string;
  target_id: string;
  relation_type: string;
}

@Injectable()
export class CiRelationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Edges of the given types leaving (`outgoing`) or entering the given items. */
  edges(
    tenantId: string,
    ids: string[],
    types: string[],
    direction: 'outgoing' | 'incoming',
  ): Promise<RelationEdge[]> {
    if (!ids.length || !types.length) return Promise.resolve([]);
    const column = direction === 'outgoing' ? 'source_id' : 'target_id';
    return this.dataSource.query(
      `SELECT source_id, target_id, relation_type FROM ops_ci_relations
       WHERE tenant_id = $1 AND ${column} = ANY($2::uuid[]) AND relation_type = ANY($3::text[])
       ORDER BY source_id, target_id, relation_type`,
      [tenantId, ids, types],
    );
  }
}
