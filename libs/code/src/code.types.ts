import type { FileLanguage } from './parsing/code-parser.types';

export const CODE_FILE_STATUSES = ['added', 'modified', 'deleted', 'renamed'] as const;
export type CodeFileStatus = (typeof CODE_FILE_STATUSES)[number];

/** One file of the seed's diff request. */
export interface DiffFileInput {
  path: string;
  status: CodeFileStatus;
  old_path?: string | null;
  before?: string | null;
  after?: string | null;
}

/** `files` (whole texts) or `unified` (a git diff applied to the stored texts). */
export interface DiffApplyRequest {
  userId: string;
  repository?: string;
  commit?: string;
  files?: DiffFileInput[];
  unified?: string;
}

export const DIFF_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type DiffStatus = (typeof DIFF_STATUSES)[number];

export interface FailedFile {
  path: string;
  error: string;
}

/** The seed's DiffApplyResult, plus the files that could not be indexed. */
export interface DiffApplyResult {
  files_processed: number;
  embeddings_upserted: number;
  graph_nodes_updated: number;
  failed_files: FailedFile[];
}

export interface DiffView {
  diff_id: string;
  status: DiffStatus;
  repository_id: string;
  repository: string;
  user_id: string;
  commit: string | null;
  /** Paths whose stored text this request changed (in request order). */
  changed_files: string[];
  /** The DiffApplyResult fields: null until the diff is indexed. */
  files_processed: number | null;
  embeddings_upserted: number | null;
  graph_nodes_updated: number | null;
  failed_files: FailedFile[];
  error: Record<string, unknown> | null;
  attempts: number;
  created_at: string;
  finished_at: string | null;
}

export interface RepositoryView {
  id: string;
  user_id: string;
  name: string;
  files: number;
  created_at: string;
  updated_at: string;
}

export interface CodeFileView {
  path: string;
  language: FileLanguage;
  size: number;
  content_hash: string;
  indexed: boolean;
  updated_at: string;
  text?: string;
}

export const NODE_KINDS = ['File', 'Class', 'Function', 'Module'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];
export const EDGE_KINDS = ['CONTAINS', 'IMPORTS', 'CALLS', 'EXTENDS', 'IMPLEMENTS'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

export interface CodeSymbolView {
  id: string;
  repository_id: string;
  kind: NodeKind;
  subkind: string;
  name: string;
  qualified_name: string;
  path: string | null;
  signature: string | null;
  start_line: number | null;
  end_line: number | null;
  doc_comment: string | null;
  language: string | null;
  exported: boolean;
}

/** A symbol reached over edges: `depth` 1 is a direct caller/callee. */
export interface RelatedSymbol {
  symbol: CodeSymbolView | null;
  /** The callee's name when the call was not resolved to a symbol of the repository. */
  name: string;
  depth: number;
  line: number | null;
}

export interface CodeSymbolDetail extends CodeSymbolView {
  callers: RelatedSymbol[];
  callees: RelatedSymbol[];
  imports: string[];
  extends: string[];
  implements: string[];
  file: string | null;
}
