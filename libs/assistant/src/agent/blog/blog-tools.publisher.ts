import { Injectable } from '@nestjs/common';
import {
  type Actor,
  AssetRegistryException,
  AssetRegistryExceptionCode,
  AssetRegistryService,
} from '@app/asset-registry';
import { blogToolAssets } from './blog-tool-specs';

export interface BlogToolPublication {
  name: string;
  asset_id: string;
  /** The version serving after the call. */
  version: number;
  outcome: 'created' | 'updated' | 'unchanged';
}

/**
 * Creates (or updates) and publishes the blog tool assets of a tenant against a blog backend.
 * Idempotent: running it again with the same base URL leaves the serving versions alone.
 */
@Injectable()
export class BlogToolsPublisher {
  constructor(private readonly assets: AssetRegistryService) {}

  async publish(actor: Actor, baseUrl: string): Promise<BlogToolPublication[]> {
    const publications: BlogToolPublication[] = [];
    for (const input of blogToolAssets(baseUrl)) {
      const existing = await this.assets.findByName(actor.tenantId, 'tool', input.name);
      const asset = existing
        ? await this.assets.update(actor, existing.id, {
            description: input.description,
            tags: input.tags,
            spec: input.spec,
          })
        : await this.assets.create(actor, input);
      try {
        const version = await this.assets.publish(actor, asset.id, { note: `blog backend ${baseUrl}` });
        publications.push({
          name: input.name,
          asset_id: asset.id,
          version: version.version,
          outcome: existing ? 'updated' : 'created',
        });
      } catch (error) {
        if (!(
          error instanceof AssetRegistryException &&
          error.code === (AssetRegistryExceptionCode.ASSET_NO_CHANGES as string)
        ))
          throw error;
        publications.push({
          name: input.name,
          asset_id: asset.id,
          version: asset.published_version ?? asset.version,
          outcome: 'unchanged',
        });
      }
    }
    return publications;
  }
}
