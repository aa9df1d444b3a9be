import { AppException, ErrorKind } from '@app/platform';

export enum ChatExceptionCode {
  CONVERSATION_NOT_FOUND = 'CONVERSATION_NOT_FOUND',
}

export class ChatException extends AppException {
  constructor(code: ChatExceptionCode, kind: ErrorKind, message: string, details?: unknown) {
    super(code, kind, message, details);
  }

  /** Also for another user's conversation: its existence is not revealed. */
  static conversationNotFound(id: string): ChatException {
    return new ChatException(
      ChatExceptionCode.CONVERSATION_NOT_FOUND,
      ErrorKind.NOT_FOUND,
      `Conversation ${id} was not found.`,
      { conversation_id: id },
    );
  }
}
