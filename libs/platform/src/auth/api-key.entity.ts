import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { Role } from './principal';
import { TenantEntity } from './tenant.entity';

@Entity('api_keys')
@Check('CHK_api_keys_role', `"role" IN ('reader', 'operator', 'admin', 'service')`)
@Index(['tenantId', 'createdAt'])
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: TenantEntity;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  /** The first characters of the key, safe to show, to tell keys apart. */
  @Column({ type: 'varchar', length: 24 })
  prefix!: string;

  /** SHA-256 of the whole key: keys are 256-bit random, so a fast hash is enough and lookups stay O(1). */
  @Column({ type: 'char', length: 64, unique: true })
  keyHash!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: Role;

  @Column({ type: 'boolean', default: false })
  isSystemAdmin!: boolean;

  /** The user or service the key acts for; becomes `user_id` of everything done with it. */
  @Column({ type: 'varchar', length: 200 })
  userId!: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  createdBy!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
