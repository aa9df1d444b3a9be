import { isDeepStrictEqual } from 'node:util';
import {
  SPEC_FIELDS,
  type AssetSnapshot,
  type AssetSpec,
  type AssetVersionView,
  type AssetView,
  type SpecField,
} from '../asset.types';
import type { AssetEntity } from './asset.entity';
import type { AssetVersionEntity } from './asset-version.entity';

/** Snake-case API field -> entity property. */
export const SPEC_COLUMNS: Record<SpecField, keyof AssetEntity> = {
  scope: 'scope',
  engine: 'engine',
  template: 'template',
  input_schema: 'inputSchema',
  output_contract: 'outputContract',
  query_sql: 'querySql',
  query_cypher: 'queryCypher',
  query_http: 'queryHttp',
  query_params: 'queryParams',
  query_metadata: 'queryMetadata',
  tool_type: 'toolType',
  tool_config: 'toolConfig',
  tool_input_schema: 'toolInputSchema',
  tool_output_schema: 'toolOutputSchema',
  sample_input: 'sampleInput',
  has_side_effects: 'hasSideEffects',
  source_ref: 'sourceRef',
  planning_hints: 'planningHints',
  content: 'content',
};

/** The fields an asset carries: only its type's are ever written (the validator refuses the others). */
export function specOf(entity: AssetEntity): AssetSpec {
  const spec: AssetSpec = {};
  for (const field of SPEC_FIELDS) {
    const value = entity[SPEC_COLUMNS[field]];
    if (value !== null && value !== undefined) spec[field] = value;
  }
  return spec;
}

/** Entity columns for a spec: every spec column is written, so fields dropped from the spec become null. */
export function columnsOf(spec: AssetSpec): Partial<AssetEntity> {
  const columns: Record<string, unknown> = {};
  for (const field of SPEC_FIELDS) columns[SPEC_COLUMNS[field]] = spec[field] ?? null;
  return columns;
}

export function snapshotOf(entity: AssetEntity): AssetSnapshot {
  return {
    asset_type: entity.assetType,
    name: entity.name,
    description: entity.description,
    tags: entity.tags ?? [],
    ...specOf(entity),
  };
}

export function sameContent(a: AssetSnapshot, b: AssetSnapshot): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toAssetView(entity: AssetEntity): AssetView {
  return {
    id: entity.assetId,
    ...snapshotOf(entity),
    status: entity.status,
    version: entity.version,
    published_version: entity.publishedVersion,
    has_unpublished_changes: entity.status === 'draft',
    created_at: entity.createdAt.toISOString(),
    updated_at: entity.updatedAt.toISOString(),
    created_by: entity.createdBy,
    updated_by: entity.updatedBy,
    published_at: iso(entity.publishedAt),
    published_by: entity.publishedBy,
    archived_at: iso(entity.archivedAt),
    archived_by: entity.archivedBy,
  };
}

export function toVersionView(row: AssetVersionEntity, withSnapshot: boolean): AssetVersionView {
  return {
    asset_id: row.assetId,
    version: row.version,
    published_at: row.publishedAt.toISOString(),
    published_by: row.publishedBy,
    rollback_from_version: row.rollbackFromVersion,
    note: row.note,
    contract_check: row.contractCheck,
    dry_run: row.dryRun,
    ...(withSnapshot ? { snapshot: row.snapshot } : {}),
  };
}
