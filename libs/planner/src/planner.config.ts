import { Transform } from 'class-transformer';
import { IsInt, IsNumber, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { ConfigDoc, emptyToUndefined, toNumber } from '@app/platform/config';

/**
 * The planner's keys: the LLM client (shared by the agent and the chat) and the caps on plans.
 */
export class PlannerConfig {
  @ConfigDoc('any OpenAI-compatible endpoint', 'unset (fallback planner)')
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  LLM_BASE_URL?: string;

  @ConfigDoc("the LLM endpoint's key", 'unset')
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  LLM_API_KEY?: string;

  @ConfigDoc("the LLM endpoint's model", 'unset')
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  LLM_MODEL?: string;

  @ConfigDoc('sampling temperature of LLM calls')
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  @Max(2)
  LLM_TEMPERATURE = 0;

  @ConfigDoc('answer length of LLM calls')
  @Transform(toNumber)
  @IsInt()
  @Min(16)
  LLM_MAX_TOKENS = 1024;

  @ConfigDoc('per-call timeout of LLM calls')
  @Transform(toNumber)
  @IsInt()
  @Min(100)
  LLM_TIMEOUT_MS = 30_000;

  @ConfigDoc('retries of an LLM call')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(10)
  LLM_MAX_RETRIES = 2;

  @ConfigDoc('retry backoff of LLM calls (1 s, 2 s, ...)')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  LLM_RETRY_BASE_DELAY_MS = 1000;

  @ConfigDoc(
    'estimated tokens of tools, catalogs and mappings in the planning prompt; the least relevant are left out ([planner](api-ops.md#planner-api))',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(500)
  PLANNER_TOKEN_BUDGET = 6000;

  @ConfigDoc('largest limit or top-N of a plan')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  PLANNER_MAX_LIMIT = 100;

  @ConfigDoc('most steps of a plan')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(50)
  PLANNER_MAX_STEPS = 8;

  @ConfigDoc('total execution time of `/ops/ask`')
  @Transform(toNumber)
  @IsInt()
  @Min(100)
  PLANNER_EXECUTION_TIMEOUT_MS = 30_000;
}
