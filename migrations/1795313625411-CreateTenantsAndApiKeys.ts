import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateTenantsAndApiKeys1795313625411 implements MigrationInterface {
  name = 'CreateTenantsAndApiKeys1795313625411';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "tenants" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "slug" character varying(64) NOT NULL, "name" character varying(200) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_2310ecc5cb8be427097154b18fc" UNIQUE ("slug"), CONSTRAINT "PK_53be67a04681c66b87ee27c9321" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "api_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "name" character varying(200) NOT NULL, "prefix" character varying(24) NOT NULL, "key_hash" character(64) NOT NULL, "role" character varying(16) NOT NULL, "is_system_admin" boolean NOT NULL DEFAULT false, "user_id" character varying(200) NOT NULL, "created_by" character varying(200), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "UQ_57384430aa1959f4578046c9b81" UNIQUE ("key_hash"), CONSTRAINT "CHK_api_keys_role" CHECK ("role" IN (\'reader\', \'operator\', \'admin\')), CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_ad466567933bb883b4c3aec6a2" ON "api_keys" ("tenant_id", "created_at") ',
    );
    await queryRunner.query(
      'ALTER TABLE "api_keys" ADD CONSTRAINT "FK_3ac18429c8d27858d79432e0dda" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "api_keys" DROP CONSTRAINT "FK_3ac18429c8d27858d79432e0dda"');
    await queryRunner.query('DROP INDEX "public"."IDX_ad466567933bb883b4c3aec6a2"');
    await queryRunner.query('DROP TABLE "api_keys"');
    await queryRunner.query('DROP TABLE "tenants"');
  }
}
