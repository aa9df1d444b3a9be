import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { type CreateKeyInput, ROLES, type Role, SECRET_VALUE_MAX_CHARS } from '@app/platform';

export class CreateTenantRequestDto {
  @ApiProperty({ example: 'acme', description: 'Lowercase letters, digits and dashes' })
  @Matches(/^[a-z0-9][a-z0-9-]{1,62}$/, { message: 'slug must be 2-63 lowercase letters, digits or dashes' })
  slug!: string;

  @ApiPropertyOptional({ example: 'Acme Corp' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;
}

export class CreateApiKeyRequestDto {
  @ApiProperty({ example: 'ci pipeline' })
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES)
  role!: Role;

  @ApiPropertyOptional({ description: 'The user or service the key acts for (defaults to the key itself)' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  user_id?: string;

  @ApiPropertyOptional({ description: 'ISO 8601 expiry time' })
  @IsOptional()
  @IsDateString()
  expires_at?: string;
}

export function toCreateKeyInput(body: CreateApiKeyRequestDto): CreateKeyInput {
  return {
    name: body.name,
    role: body.role,
    userId: body.user_id,
    expiresAt: body.expires_at ? new Date(body.expires_at) : undefined,
  };
}

export class PutSecretRequestDto {
  @ApiProperty({ description: 'The secret value; stored encrypted, never returned', example: 's3cr3t-token' })
  @IsString()
  @Length(1, SECRET_VALUE_MAX_CHARS)
  value!: string;
}
