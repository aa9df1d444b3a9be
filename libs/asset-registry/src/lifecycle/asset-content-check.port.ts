import { Injectable } from '@nestjs/common';
import type { AssetType } from '../types/asset-type.registry';

/**
 * A publish-time check of an asset's content that needs a library above this one (a stage
 * definition's tools and references are known to the tools library). Returns the problems; an empty
 * list passes.
 */
export type AssetContentChecker = (tenantId: string, content: unknown) => Promise<string[]> | string[];

/**
 * Where higher libraries plug in content checks per asset type, as the tools library does for
 * `stage` assets. Publishing an asset whose type has a checker runs it and refuses the publish with
 * 400 ASSET_CONTRACT_INVALID listing every problem.
 */
@Injectable()
export class AssetContentCheckPort {
  private readonly checkers = new Map<AssetType, AssetContentChecker>();

  register(assetType: AssetType, checker: AssetContentChecker): void {
    const existing = this.checkers.get(assetType);
    if (existing && existing !== checker)
      throw new Error(`A content check for "${assetType}" assets is already registered.`);
    this.checkers.set(assetType, checker);
  }

  checkerFor(assetType: AssetType): AssetContentChecker | undefined {
    return this.checkers.get(assetType);
  }
}
