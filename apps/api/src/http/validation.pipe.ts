import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ErrorKind, PlatformException, PlatformExceptionCode } from '@app/platform';

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

/** Strict DTO validation: unknown properties are rejected, and every bad field is named. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
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
