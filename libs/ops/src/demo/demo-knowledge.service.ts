import { Injectable, Logger } from '@nestjs/common';
import {
  AssetRegistryException,
  AssetRegistryExceptionCode,
  AssetRegistryService,
  PublishedAssetReader,
  type AssetType,
} from '@app/asset-registry';
import { DocumentIngestionService } from '@app/documents';
import { OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '../data/ops-catalog';
import { listDemoRunbooks } from './demo-runbooks';

/** The asset names the planner reads (see the planner's PLANNER_ASSET_NAMES). */
export const DEMO_CATALOG_ASSET = 'ops';
export const DEMO_MAPPING_ASSET = 'ops-keywords';
const DEMO_ACTOR = 'demo-loader';
const RUNBOOK_METADATA = { source: 'demo', kind: 'runbook' };
const RUNBOOK_SETTLE_ATTEMPTS = 150;
const RUNBOOK_SETTLE_POLL_MS = 200;

export interface DemoAssetOutcome {
  asset_type: AssetType;
  name: string;
  version: number;
  changed: boolean;
}

export interface DemoRunbookOutcome {
  filename: string;
  document_id: string;
  queued: boolean;
}

/**
 * What the demo tenant needs besides the OPS rows: the catalog and keyword mappings published as
 * assets (the planner plans from them) and the runbooks in the document store. Both idempotent: an
 * identical published version is left alone, a runbook with unchanged content queues nothing.
 */
@Injectable()
export class DemoKnowledgeService {
  private readonly logger = new Logger(DemoKnowledgeService.name);

  constructor(
    private readonly assets: AssetRegistryService,
    private readonly published: PublishedAssetReader,
    private readonly documents: DocumentIngestionService,
  ) {}

  async publishAssets(tenantId: string): Promise<DemoAssetOutcome[]> {
    return [
      await this.publish(
        tenantId,
        'catalog',
        DEMO_CATALOG_ASSET,
        'OPS tables: configuration items, metrics, history, relations',
        OPS_CATALOG,
      ),
      await this.publish(
        tenantId,
        'mapping',
        DEMO_MAPPING_ASSET,
        'What users say (Korean and English) -> OPS tool values',
        OPS_KEYWORD_MAPPINGS,
      ),
    ];
  }

  /** Upserts every runbook by filename; with `drain`, processes the queue here (CLI, tests). */
  async ingestRunbooks(tenantId: string, drain: boolean): Promise<DemoRunbookOutcome[]> {
    const outcomes: DemoRunbookOutcome[] = [];
    for (const runbook of listDemoRunbooks()) {
      const { document, queued } = await this.documents.upsertByFilename(tenantId, {
        filename: runbook.file,
        content: runbook.content,
        contentType: 'text/markdown',
        metadata: { ...RUNBOOK_METADATA, language: runbook.language, title: runbook.title },
        userId: DEMO_ACTOR,
      });
      outcomes.push({ filename: runbook.file, document_id: document.id, queued });
    }
    if (drain && outcomes.some((o) => o.queued)) await this.settle(tenantId);
    return outcomes;
  }

  /**
   * Processes the queue here, then waits for jobs the background worker claimed first, so the
   * runbooks are searchable (or recorded as failed) when the load reports ready.
   */
  private async settle(tenantId: string): Promise<void> {
    await this.documents.processQueue();
    for (let attempt = 0; attempt < RUNBOOK_SETTLE_ATTEMPTS; attempt++) {
      const { items } = await this.documents.list(tenantId, { metadata: RUNBOOK_METADATA, limit: 500 });
      if (items.every((v) => v.status === 'done' || v.status === 'failed')) return;
      await new Promise((resolve) => setTimeout(resolve, RUNBOOK_SETTLE_POLL_MS));
      await this.documents.processQueue();
    }
    this.logger.warn({
      msg: 'demo runbooks still processing; the document worker will finish them',
      tenantId,
    });
  }

  private async publish(
    tenantId: string,
    assetType: AssetType,
    name: string,
    description: string,
    content: object,
  ): Promise<DemoAssetOutcome> {
    const actor = { tenantId, userId: DEMO_ACTOR };
    const serving = await this.published.getPublished(tenantId, assetType, name);
    if (serving && JSON.stringify(serving.snapshot.content) === JSON.stringify(content))
      return { asset_type: assetType, name, version: serving.version, changed: false };
    const existing = await this.assets.findByName(tenantId, assetType, name);
    const asset = existing
      ? await this.assets.update(actor, existing.id, { spec: { content } })
      : await this.assets.create(actor, {
          asset_type: assetType,
          name,
          description,
          tags: ['demo', 'ops'],
          spec: { content },
        });
    try {
      const version = await this.assets.publish(actor, asset.id, { note: 'demo dataset' });
      this.logger.log({ msg: 'demo asset published', tenantId, assetType, name, version: version.version });
      return { asset_type: assetType, name, version: version.version, changed: true };
    } catch (error) {
      if (
        error instanceof AssetRegistryException &&
        error.code === (AssetRegistryExceptionCode.ASSET_NO_CHANGES as string)
      ) {
        const current = await this.published.getPublished(tenantId, assetType, name);
        return { asset_type: assetType, name, version: current?.version ?? 0, changed: false };
      }
      throw error;
    }
  }
}
