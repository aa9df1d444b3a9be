import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateChatConversations1795316928696 implements MigrationInterface {
  name = 'CreateChatConversations1795316928696';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "chat_conversations" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "user_id" character varying(200) NOT NULL, "title" character varying(200) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_ff117d9f57807c4f2e3034a39f3" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_f2954ff9f7d2f511c8f3e48702" ON "chat_conversations" ("tenant_id", "user_id", "updated_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "chat_messages" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "conversation_id" uuid NOT NULL, "position" integer NOT NULL, "role" character varying(16) NOT NULL, "content" text NOT NULL, "metadata" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_chat_messages_conversation_position" UNIQUE ("conversation_id", "position"), CONSTRAINT "CHK_chat_messages_role" CHECK ("role" IN (\'user\', \'assistant\')), CONSTRAINT "PK_40c55ee0e571e268b0d3cd37d10" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'ALTER TABLE "chat_conversations" ADD CONSTRAINT "FK_7ef2018a366e10359ae85e95c9b" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "chat_messages" ADD CONSTRAINT "FK_2e818d30c3c802e361e8bc62060" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "chat_messages" ADD CONSTRAINT "FK_3d623662d4ee1219b23cf61e649" FOREIGN KEY ("conversation_id") REFERENCES "chat_conversations"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "chat_messages" DROP CONSTRAINT "FK_3d623662d4ee1219b23cf61e649"');
    await queryRunner.query('ALTER TABLE "chat_messages" DROP CONSTRAINT "FK_2e818d30c3c802e361e8bc62060"');
    await queryRunner.query(
      'ALTER TABLE "chat_conversations" DROP CONSTRAINT "FK_7ef2018a366e10359ae85e95c9b"',
    );
    await queryRunner.query('DROP TABLE "chat_messages"');
    await queryRunner.query('DROP INDEX "public"."IDX_f2954ff9f7d2f511c8f3e48702"');
    await queryRunner.query('DROP TABLE "chat_conversations"');
  }
}
