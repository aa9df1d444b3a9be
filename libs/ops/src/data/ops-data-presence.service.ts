import { Injectable } from '@nestjs/common';
import { ConfigurationItemRepository } from './configuration-item.repository';

/** The built-in tools that read the OPS data model: an empty result from them may mean "nothing loaded". */
export const OPS_DATA_TOOLS: ReadonlySet<string> = new Set([
  'ci_lookup',
  'metric_query',
  'history_query',
  'graph_analysis',
]);

/** Tells callers whether a tenant has OPS data, so an empty answer can say how to load some. */
@Injectable()
export class OpsDataPresence {
  constructor(private readonly items: ConfigurationItemRepository) {}

  hasData(tenantId: string): Promise<boolean> {
    return this.items.hasAny(tenantId);
  }
}
