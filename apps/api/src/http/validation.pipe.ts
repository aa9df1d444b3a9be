import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { assertSafeStrings, ErrorKind, PlatformException, PlatformExceptionCode } from '@app/platform';

export interface FieldError {
  field: string;
  errors: string[];
}

export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, errors: Object.values(error.constraints) }] : [];
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

/**
 * The one global input check: NUL and lone surrogates are refused in every body, query, route
 * parameter and multipart field (before validation, and again after the DTO's transforms, which
 * may parse JSON-valued form fields), then the DTO is validated.
 */
export class InputValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    assertSafeStrings(value, metadata.type === 'param' ? (metadata.data ?? '') : '');
    const transformed: unknown = await super.transform(value, metadata);
    if (transformed !== value) assertSafeStrings(transformed);
    return transformed;
  }
}

/** Strict DTO validation: unknown properties are rejected, and every bad field is named. */
export function createValidationPipe(): ValidationPipe {
  return new InputValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => {
      const fields = flattenValidationErrors(errors);
      return new PlatformException(
        PlatformExceptionCode.VALIDATION_FAILED,
        ErrorKind.INVALID_INPUT,
        `Invalid request: ${fields.map((f) => f.field).join(', ')}`,
        { fields },
      );
    },
  });
}
