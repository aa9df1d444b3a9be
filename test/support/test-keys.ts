import { randomBytes } from 'node:crypto';

export function generateTestApiKey(): string {
  return `ops_test${randomBytes(24).toString('hex')}`;
}
