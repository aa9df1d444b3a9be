import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import path from 'node:path';
import { EnvironmentVariables } from './environment';

/** Typed, read-only view of the validated environment. */
@Injectable()
export class AppConfig {
  constructor(private readonly config: ConfigService<EnvironmentVariables, true>) {}

  get<K extends keyof EnvironmentVariables>(key: K): EnvironmentVariables[K] {
    return this.config.get(key, { infer: true });
  }

  get dataDir(): string {
    return path.resolve(this.get('DATA_DIR'));
  }

  get databaseUrl(): string | undefined {
    return this.get('DATABASE_URL');
  }

  get redisUrl(): string | undefined {
    return this.get('REDIS_URL');
  }

  get isProduction(): boolean {
    return this.get('NODE_ENV') === 'production';
  }
}
