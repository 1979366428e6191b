import { ERROR_STATUS, type ErrorCode, type FieldError } from '../../shared/errors.js';

/**
 * The one error type the domain throws. The HTTP layer maps it to the envelope; the message is
 * for people, the code for programs, the hint says what to do next.
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { hint?: string; details?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what = 'Item') =>
  new AppError('NOT_FOUND', `${what} not found`, { hint: 'Check the id; items of other accounts are never visible' });

export const chatbotNotFound = () =>
  new AppError('CHATBOT_NOT_FOUND', 'Chatbot not found', {
    hint: 'Check the chatbot id, and that your token is not restricted to other chatbots',
  });

export const confirmationRequired = (how = 'Add ?confirm=true to the request') =>
  new AppError('CONFIRMATION_REQUIRED', 'This deletes data and needs explicit confirmation; nothing was deleted', {
    hint: how,
  });

export const validationFailed = (details: FieldError[], message = 'The request is not valid') =>
  new AppError('VALIDATION_FAILED', message, {
    details,
    hint: 'Fix the fields listed in error.details and send again',
  });
