import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ErrorKind, PlatformException, PlatformExceptionCode } from '../errors/app.exception';
import { PG_INT_MAX } from './input-limits';

const DIGITS = /^\d{1,10}$/;

/**
 * Parses a route or query number and keeps it inside `[min, max]` (default: a positive int4),
 * so an out-of-range value is a 400 here rather than a PostgreSQL overflow (22003) later.
 */
@Injectable()
export class ParseBoundedIntPipe implements PipeTransform<string, number> {
  constructor(
    private readonly min = 0,
    private readonly max = PG_INT_MAX,
  ) {}

  transform(value: string, metadata: ArgumentMetadata): number {
    const parsed = DIGITS.test(value) ? Number(value) : Number.NaN;
    if (Number.isInteger(parsed) && parsed >= this.min && parsed <= this.max) return parsed;
    const field = metadata.data ?? 'value';
    throw new PlatformException(
      PlatformExceptionCode.VALIDATION_FAILED,
      ErrorKind.INVALID_INPUT,
      `Invalid request: ${field} must be an integer from ${this.min} to ${this.max}`,
      { fields: [{ field, errors: [`${field} must be an integer from ${this.min} to ${this.max}`] }] },
    );
  }
}
