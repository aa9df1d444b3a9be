import { AppException, ErrorKind } from '@app/platform';

export enum StageExceptionCode {
  STAGE_INVALID = 'STAGE_INVALID',
  STAGE_RUN_NOT_FOUND = 'STAGE_RUN_NOT_FOUND',
  STAGE_NOT_FOUND = 'STAGE_NOT_FOUND',
}

export interface StageProblem {
  step: string;
  problem:
    | 'duplicate_id'
    | 'unknown_step'
    | 'forward_reference'
    | 'cycle'
    | 'bad_reference'
    | 'unknown_tool'
    | 'invalid_request'
    | 'invalid_params';
  message: string;
}

export class StageException extends AppException {
  constructor(code: StageExceptionCode, kind: ErrorKind, message: string, details?: unknown) {
    super(code, kind, message, details);
  }

  static invalid(problems: StageProblem[]): StageException {
    return new StageException(
      StageExceptionCode.STAGE_INVALID,
      ErrorKind.INVALID_INPUT,
      `The stage is not valid: ${problems.map((p) => p.message).join('; ')}`,
      { problems },
    );
  }

  static stageNotFound(name: string): StageException {
    return new StageException(
      StageExceptionCode.STAGE_NOT_FOUND,
      ErrorKind.NOT_FOUND,
      `No published stage named "${name}" (publish a stage asset first: POST /api/assets with asset_type "stage").`,
      { stage: name },
    );
  }

  static runNotFound(id: string): StageException {
    return new StageException(
      StageExceptionCode.STAGE_RUN_NOT_FOUND,
      ErrorKind.NOT_FOUND,
      `Stage run "${id}" does not exist.`,
      {
        run_id: id,
      },
    );
  }
}
