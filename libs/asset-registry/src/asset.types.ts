import type { ToolDryRunOutcome } from './asset-contents';
import type { AssetType } from './types/asset-type.registry';

export const ASSET_STATUSES = ['draft', 'published', 'archived'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];

/**
 * Every type-specific field an asset can carry (a column each): a registered asset type names the ones
 * its assets carry (`AssetTypeDefinition.fields`), all others must be absent.
 */
export const SPEC_FIELDS = [
  'scope',
  'engine',
  'template',
  'input_schema',
  'output_contract',
  'query_sql',
  'query_cypher',
  'query_http',
  'query_params',
  'query_metadata',
  'source_ref',
  'tool_type',
  'tool_config',
  'tool_input_schema',
  'tool_output_schema',
  'sample_input',
  'has_side_effects',
  'planning_hints',
  'content',
] as const;

export type SpecField = (typeof SPEC_FIELDS)[number];

/** The type-specific part of an asset, exactly as the API and the snapshots spell it. */
export type AssetSpec = Partial<Record<SpecField, unknown>>;

/** The full state of an asset that a published version freezes. */
export interface AssetSnapshot extends AssetSpec {
  asset_type: AssetType;
  name: string;
  description: string | null;
  tags: string[];
}

/** The working copy of an asset as the API shows it to admins. */
export interface AssetView extends AssetSnapshot {
  id: string;
  status: AssetStatus;
  /** The latest published version number (0 before the first publish). */
  version: number;
  /** The version now serving; null before the first publish and once archived. */
  published_version: number | null;
  /** True when the working copy differs from the serving version. */
  has_unpublished_changes: boolean;
  created_at: string;
  updated_at: string;
  created_by: string | null;
  updated_by: string | null;
  published_at: string | null;
  published_by: string | null;
  archived_at: string | null;
  archived_by: string | null;
}

export interface BreakingChange {
  kind:
    | 'input_field_removed'
    | 'input_field_newly_required'
    | 'input_type_changed'
    | 'input_enum_narrowed'
    | 'output_field_removed'
    | 'output_type_changed';
  path: string;
  message: string;
}

export interface ContractIssue {
  field: string;
  message: string;
}

/** What the tool contract check found at publish time; stored with the version it produced. */
export interface ToolContractReport {
  compared_with_version: number | null;
  issues: ContractIssue[];
  breaking_changes: BreakingChange[];
  warnings: string[];
  forced: boolean;
}

/** One published version: metadata, and the snapshot when asked for. */
export interface AssetVersionView {
  asset_id: string;
  version: number;
  published_at: string;
  published_by: string | null;
  rollback_from_version: number | null;
  note: string | null;
  contract_check: ToolContractReport | null;
  dry_run: ToolDryRunOutcome | null;
  snapshot?: AssetSnapshot;
}

/** The version of an asset now serving, as other modules read it. */
export interface PublishedAsset {
  asset_id: string;
  tenant_id: string;
  asset_type: AssetType;
  name: string;
  version: number;
  published_at: string;
  published_by: string | null;
  rollback_from_version: number | null;
  snapshot: AssetSnapshot;
}

/** A published asset's typed content (catalog, mapping, prompt, tool...) and where it came from. */
export interface PublishedContent<T> {
  asset_id: string;
  tenant_id: string;
  name: string;
  version: number;
  content: T;
}

export interface AssetDiffEntry {
  path: string;
  change: 'added' | 'removed' | 'changed';
  from?: unknown;
  to?: unknown;
}

export interface AssetDiffView {
  asset_id: string;
  from: number | 'draft';
  to: number | 'draft';
  changes: AssetDiffEntry[];
}

export interface AssetListQuery {
  assetType?: AssetType;
  status?: AssetStatus;
  tag?: string;
  name?: string;
  search?: string;
  limit: number;
  offset: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}
