import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-tenant secrets sealed with AES-256-GCM under the server key (`SECRETS_KEY`). Hand-written: no
 * entity maps the table (TenantSecretsRepository holds its SQL). `tenant_id` leads the key, so a
 * row-level-security policy on tenant_id covers it like every other tenant-owned table.
 */
export class CreateTenantSecrets1795319000000 implements MigrationInterface {
  name = 'CreateTenantSecrets1795319000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "tenant_secrets" (
        "tenant_id" uuid NOT NULL,
        "name" character varying(100) NOT NULL,
        "ciphertext" bytea NOT NULL,
        "iv" bytea NOT NULL,
        "auth_tag" bytea NOT NULL,
        "key_id" character varying(32) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "created_by" character varying(200),
        CONSTRAINT "PK_tenant_secrets" PRIMARY KEY ("tenant_id", "name"),
        CONSTRAINT "FK_tenant_secrets_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE
      )`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "tenant_secrets"');
  }
}
