import { Injectable } from '@nestjs/common';
import type { ToolDataSource } from '@app/tools';
import { ConfigurationItemRepository } from './configuration-item.repository';

/** The built-in tools that read the OPS data model: an empty result from them may mean "nothing loaded". */
export const OPS_DATA_TOOLS: ReadonlySet<string> = new Set([
  'ci_lookup',
  'metric_query',
  'history_query',
  'graph_analysis',
]);

export const NO_OPS_DATA_WARNING =
  'no_ops_data: this tenant has no configuration items, metrics or history loaded';

/**
 * Tells callers whether a tenant has OPS data, so an empty answer can say how to load some (registered
 * with the tools lib's ToolDataPresence port on start-up).
 */
@Injectable()
export class OpsDataPresence implements ToolDataSource {
  readonly tools = OPS_DATA_TOOLS;
  readonly warning = NO_OPS_DATA_WARNING;
  readonly hint = {
    ko: '이 테넌트에는 아직 OPS 데이터(구성 항목, 메트릭, 이력)가 없습니다. 데모 데이터를 불러오려면 `POST /ops/demo/load` (관리자 키) 또는 서버를 멈춘 상태에서 `npm run seed:demo` 를 실행하세요.',
    en: 'This tenant has no OPS data loaded yet (configuration items, metrics, history). Load the demo dataset with `POST /ops/demo/load` (admin key), or `npm run seed:demo` while the server is stopped.',
  };

  constructor(private readonly items: ConfigurationItemRepository) {}

  hasData(tenantId: string): Promise<boolean> {
    return this.items.hasAny(tenantId);
  }
}
