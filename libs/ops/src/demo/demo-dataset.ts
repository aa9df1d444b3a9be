import type {
  CiEnvironment,
  CiStatus,
  CiType,
  EventKind,
  EventSeverity,
  RelationType,
} from '../data/ops-vocabulary';

export const DEMO_DATASET_VERSION = 1;
export type DemoScale = 'full' | 'small';

export interface DemoItem {
  name: string;
  ci_type: CiType;
  environment: CiEnvironment;
  status: CiStatus;
  owner: string;
  tags: string[];
  description: string;
  attributes: Record<string, unknown> & { load?: Record<string, number> };
}

export interface DemoRelation {
  source: string;
  target: string;
  type: RelationType;
}

export interface DemoEvent {
  external_id: string;
  ci: string;
  minutes_ago: number;
  kind: EventKind;
  severity: EventSeverity;
  title: string;
  details: string;
  attributes: Record<string, unknown>;
}

export interface DemoDataset {
  items: DemoItem[];
  relations: DemoRelation[];
  events: DemoEvent[];
}

const APPS: Array<{ key: string; ko: string; web: boolean; tier1: boolean }> = [
  { key: 'payment', ko: '결제', web: true, tier1: true },
  { key: 'order', ko: '주문', web: true, tier1: true },
  { key: 'inventory', ko: '재고', web: false, tier1: true },
  { key: 'auth', ko: '인증', web: false, tier1: true },
  { key: 'search', ko: '검색', web: true, tier1: false },
  { key: 'user', ko: '회원', web: true, tier1: false },
  { key: 'notification', ko: '알림', web: false, tier1: false },
  { key: 'billing', ko: '정산', web: true, tier1: false },
  { key: 'analytics', ko: '분석', web: true, tier1: false },
  { key: 'shipping', ko: '배송', web: false, tier1: false },
  { key: 'catalog', ko: '상품', web: true, tier1: false },
  { key: 'review', ko: '리뷰', web: false, tier1: false },
];

/** Cross-application dependencies between `api` services (order <-> inventory is a deliberate cycle). */
const API_DEPENDENCIES: Array<[string, string]> = [
  ['order', 'payment'],
  ['order', 'inventory'],
  ['order', 'user'],
  ['inventory', 'order'],
  ['payment', 'auth'],
  ['payment', 'billing'],
  ['user', 'auth'],
  ['shipping', 'order'],
  ['search', 'catalog'],
  ['review', 'user'],
  ['review', 'catalog'],
  ['billing', 'auth'],
  ['analytics', 'order'],
];

/** Servers that run hot in prod, so "top CPU" questions have a clear answer. */
const HOT_SERVERS: Record<string, number> = {
  'prod-search-api-01': 86,
  'prod-analytics-worker-01': 81,
  'prod-order-api-02': 77,
  'prod-payment-api-01': 73,
  'prod-catalog-web-01': 69,
  'prod-inventory-db-01': 66,
};

const ENVIRONMENTS: CiEnvironment[] = ['prod', 'staging', 'dev'];
const DB_ENGINES = ['postgresql 16', 'mysql 8.0', 'postgresql 15'];

/** Deterministic PRNG (mulberry32): the same seed always yields the same dataset. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function buildDemoDataset(scale: DemoScale, seed = 20260206): DemoDataset {
  const random = prng(seed);
  const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)];
  const between = (low: number, high: number) => Math.round((low + random() * (high - low)) * 10) / 10;
  const apps = scale === 'full' ? APPS : APPS.slice(0, 3);
  const items: DemoItem[] = [];
  const relations: DemoRelation[] = [];
  let seq = 0;
  const status = (): CiStatus => {
    const r = random();
    return r < 0.03 ? 'degraded' : r < 0.05 ? 'maintenance' : r < 0.06 ? 'stopped' : 'running';
  };

  const server = (name: string, env: CiEnvironment, app: (typeof APPS)[number], role: string): DemoItem => {
    const cores = pick([4, 8, 16]);
    const hot = HOT_SERVERS[name];
    return {
      name,
      ci_type: 'server',
      environment: env,
      status: hot ? 'running' : status(),
      owner: `${app.key}-team`,
      tags: [app.key, role, ...(app.tier1 ? ['tier-1'] : [])],
      description: `${app.ko} ${role} 서버 (${env})`,
      attributes: {
        region: pick(['ap-northeast-2a', 'ap-northeast-2c']),
        os: pick(['Ubuntu 22.04', 'Rocky Linux 9', 'Amazon Linux 2023']),
        cpu_cores: cores,
        memory_gb: cores * 4,
        ip: `10.${ENVIRONMENTS.indexOf(env) + 10}.${Math.floor(seq / 200)}.${(seq % 200) + 10}`,
        load: {
          seq: ++seq,
          cpu: hot ?? (env === 'prod' ? between(18, 58) : between(5, 35)),
          memory: between(35, 82),
          disk_io: between(5, 180),
          network: between(20, 850),
        },
      },
    };
  };

  for (const env of ENVIRONMENTS) {
    for (const app of apps) {
      const system = `${env}-${app.key}-system`;
      items.push({
        name: system,
        ci_type: 'application',
        environment: env,
        status: 'running',
        owner: `${app.key}-team`,
        tags: [app.key, ...(app.tier1 ? ['tier-1'] : [])],
        description: `${app.ko} 시스템 (${app.key} system, ${env})`,
        attributes: { business_owner: `${app.ko} 사업부`, criticality: app.tier1 ? 'high' : 'medium' },
      });
      const db = `${env}-${app.key}-db`;
      const dbHost = `${db}-01`;
      items.push(server(dbHost, env, app, 'db-host'));
      items.push({
        name: db,
        ci_type: 'database',
        environment: env,
        status: status(),
        owner: `${app.key}-team`,
        tags: [app.key, 'database', ...(app.tier1 ? ['tier-1'] : [])],
        description: `${app.ko} 데이터베이스 (${env})`,
        attributes: {
          engine: pick(DB_ENGINES),
          port: 5432,
          storage_gb: pick([100, 250, 500, 1000]),
          load: { seq: ++seq, cpu: between(15, 60), memory: between(50, 85), connections: between(20, 380) },
        },
      });
      relations.push(
        { source: db, target: dbHost, type: 'runs_on' },
        { source: db, target: system, type: 'part_of' },
      );

      for (const role of ['api', 'worker', ...(app.web ? ['web'] : [])]) {
        const service = `${env}-${app.key}-${role}`;
        items.push({
          name: service,
          ci_type: 'service',
          environment: env,
          status: status(),
          owner: `${app.key}-team`,
          tags: [app.key, role, ...(app.tier1 ? ['tier-1'] : [])],
          description: `${app.ko} ${role} 서비스 (${app.key}-${role}, ${env})`,
          attributes: {
            version: `${1 + Math.floor(random() * 3)}.${Math.floor(random() * 10)}.${Math.floor(random() * 20)}`,
            runtime: pick(['node 20', 'java 21', 'go 1.22']),
            load: {
              seq: ++seq,
              requests: role === 'worker' ? between(5, 80) : between(60, 2400),
              errors: between(0.05, 1.6),
              latency: role === 'worker' ? between(150, 900) : between(35, 320),
            },
          },
        });
        relations.push({ source: service, target: system, type: 'part_of' });
        if (role !== 'web') relations.push({ source: service, target: db, type: 'depends_on' });
        if (role === 'web')
          relations.push({ source: service, target: `${env}-${app.key}-api`, type: 'depends_on' });
        const replicas = env === 'prod' ? 2 : 1;
        for (let n = 1; n <= replicas; n++) {
          const host = `${service}-0${n}`;
          items.push(server(host, env, app, role));
          relations.push({ source: service, target: host, type: 'runs_on' });
        }
      }
    }
    const present = new Set(apps.map((a) => a.key));
    for (const [from, to] of API_DEPENDENCIES) {
      if (present.has(from) && present.has(to))
        relations.push({ source: `${env}-${from}-api`, target: `${env}-${to}-api`, type: 'depends_on' });
    }
  }
  return { items, relations, events: buildEvents(items, random) };
}

function buildEvents(items: DemoItem[], random: () => number): DemoEvent[] {
  const events: DemoEvent[] = [];
  const minutesAgo = (maxDays: number) => Math.floor(random() * maxDays * 1440) + 5;
  const add = (event: Omit<DemoEvent, 'external_id'>) =>
    events.push({ ...event, external_id: `demo-${String(events.length + 1).padStart(5, '0')}` });
  const weight: Record<CiEnvironment, number> = { prod: 1, staging: 0.6, dev: 0.3 };

  for (const item of items) {
    const w = weight[item.environment];
    if (item.ci_type === 'service') {
      const deployments = Math.round((4 + random() * 6) * w);
      for (let i = 0; i < deployments; i++) {
        const version = `${1 + Math.floor(random() * 3)}.${Math.floor(random() * 10)}.${Math.floor(random() * 30)}`;
        add({
          ci: item.name,
          minutes_ago: minutesAgo(30),
          kind: 'deployment',
          severity: 'info',
          title: `${item.name} 배포 v${version}`,
          details: `Rolling deployment of ${item.name} to version ${version}. 배포 파이프라인 정상 완료.`,
          attributes: { version, pipeline: `deploy-${Math.floor(random() * 9000) + 1000}` },
        });
      }
      if (random() < 0.35 * w) {
        add({
          ci: item.name,
          minutes_ago: minutesAgo(30),
          kind: 'incident',
          severity: random() < 0.3 ? 'critical' : 'major',
          title: `${item.name} 응답 지연 및 5xx 증가`,
          details: `p95 latency above SLO and error rate spike on ${item.name}. 원인: 커넥션 풀 고갈, 재시작으로 복구.`,
          attributes: {
            ticket: `INC-${Math.floor(random() * 90000) + 10000}`,
            duration_minutes: Math.floor(random() * 120) + 10,
          },
        });
      }
    } else if (item.ci_type === 'server') {
      const load = item.attributes.load ?? {};
      if ((load.cpu ?? 0) >= 65) {
        for (let i = 0; i < 3; i++) {
          add({
            ci: item.name,
            minutes_ago: minutesAgo(14),
            kind: 'alert',
            severity: 'warning',
            title: `CPU 사용률 90% 초과 (${item.name})`,
            details: `cpu_usage above 90% for 10 minutes on ${item.name}.`,
            attributes: { metric: 'cpu_usage', threshold: 90 },
          });
        }
        add({
          ci: item.name,
          minutes_ago: minutesAgo(7),
          kind: 'incident',
          severity: 'major',
          title: `High CPU on ${item.name} / CPU 과부하`,
          details:
            'Sustained CPU saturation; traffic shifted to the other replica while a hot loop was fixed.',
          attributes: { ticket: `INC-${Math.floor(random() * 90000) + 10000}`, duration_minutes: 45 },
        });
      }
      if (random() < 0.4 * w) {
        add({
          ci: item.name,
          minutes_ago: minutesAgo(30),
          kind: 'change',
          severity: 'info',
          title: `${item.name} 커널 파라미터 변경`,
          details: 'Changed vm.swappiness and net.core.somaxconn per capacity review (CHG approved).',
          attributes: { ticket: `CHG-${Math.floor(random() * 90000) + 10000}` },
        });
      }
    } else if (item.ci_type === 'database') {
      for (let week = 0; week < 4; week++) {
        add({
          ci: item.name,
          minutes_ago: week * 7 * 1440 + 3 * 60 + Math.floor(random() * 60),
          kind: 'maintenance',
          severity: 'info',
          title: `${item.name} 정기 점검 (vacuum, 백업 검증)`,
          details: 'Weekly maintenance window: VACUUM ANALYZE, backup restore test, minor version check.',
          attributes: { window_minutes: 60 },
        });
      }
      if (random() < 0.5 * w) {
        add({
          ci: item.name,
          minutes_ago: minutesAgo(30),
          kind: 'incident',
          severity: random() < 0.4 ? 'critical' : 'major',
          title: `${item.name} 슬로우 쿼리로 인한 커넥션 고갈`,
          details: 'Slow queries held connections until the pool was exhausted; added a missing index.',
          attributes: {
            ticket: `INC-${Math.floor(random() * 90000) + 10000}`,
            duration_minutes: Math.floor(random() * 90) + 15,
          },
        });
      }
    }
  }
  return events;
}
