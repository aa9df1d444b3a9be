import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat turns record the request that asked them (`request_id`, `trace_id`), the API key id and how they
 * were asked (`caller`), like stage and agent runs, so a log line or a complaint finds the turn.
 */
export class AddChatMessageIds1795900000002 implements MigrationInterface {
  name = 'AddChatMessageIds1795900000002';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "chat_messages" ADD "request_id" character varying(128)`);
    await queryRunner.query(`ALTER TABLE "chat_messages" ADD "trace_id" character varying(64)`);
    await queryRunner.query(`ALTER TABLE "chat_messages" ADD "key_id" character varying(200)`);
    await queryRunner.query(`ALTER TABLE "chat_messages" ADD "caller" character varying(16)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "chat_messages" DROP COLUMN "caller"`);
    await queryRunner.query(`ALTER TABLE "chat_messages" DROP COLUMN "key_id"`);
    await queryRunner.query(`ALTER TABLE "chat_messages" DROP COLUMN "trace_id"`);
    await queryRunner.query(`ALTER TABLE "chat_messages" DROP COLUMN "request_id"`);
  }
}
