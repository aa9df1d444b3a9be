import type { MigrationInterface } from 'typeorm';
import { CreateTenantsAndApiKeys1795313625411 } from './1795313625411-CreateTenantsAndApiKeys';
import { AllowServiceApiKeyRole1795316249719 } from './1795316249719-AllowServiceApiKeyRole';

type MigrationClass = new () => MigrationInterface;

/** Every migration, oldest first. Listed explicitly so the build and the tests load the same set. */
export const MIGRATIONS: MigrationClass[] = [
  CreateTenantsAndApiKeys1795313625411,
  AllowServiceApiKeyRole1795316249719,
];
