import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Asset types are registered by the libs that own them (`AssetTypeRegistry`), so the table no longer
 * lists them: the check keeps the shape of a type name, the registry decides which ones exist.
 */
export class OpenAssetTypes1796410000000 implements MigrationInterface {
  name = 'OpenAssetTypes1796410000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "tb_asset_registry" DROP CONSTRAINT "CHK_tb_asset_registry_type"');
    await queryRunner.query(
      `ALTER TABLE "tb_asset_registry" ADD CONSTRAINT "CHK_tb_asset_registry_type" CHECK ("asset_type" ~ '^[a-z][a-z0-9_]{0,31}$')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    const known = `'prompt', 'mapping', 'policy', 'query', 'source', 'catalog', 'resolver', 'tool', 'screen', 'stage'`;
    await queryRunner.query(`DELETE FROM "tb_asset_registry" WHERE "asset_type" NOT IN (${known})`);
    await queryRunner.query('ALTER TABLE "tb_asset_registry" DROP CONSTRAINT "CHK_tb_asset_registry_type"');
    await queryRunner.query(
      `ALTER TABLE "tb_asset_registry" ADD CONSTRAINT "CHK_tb_asset_registry_type" CHECK ("asset_type" IN (${known}))`,
    );
  }
}
