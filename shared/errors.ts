/**
 * Every error code the v2 API can answer with, and its HTTP status (spec section 7, plus the
 * transport-level codes the spec leaves to us). Clients match on the code, never the message.
 */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  VALIDATION_FAILED: 400,
  CONFIRMATION_REQUIRED: 400,
  INVALID_CURSOR: 400,
  AUTHORIZATION_HEADER_REQUIRED: 401,
  AUTHORIZATION_HEADER_NOT_VALID: 401,
  TOKEN_NOT_VALID: 401,
  /** Sign-in: the e-mail and password do not match a user who may sign in (one answer for both). */
  CREDENTIALS_NOT_VALID: 401,
  /** A change sent with the session cookie lacks the session's CSRF token (X-CSRF-Token). */
  CSRF_TOKEN_NOT_VALID: 403,
  /** The first-run set-up link is used, expired, or not this server's (a password exists already). */
  SETUP_LINK_NOT_VALID: 400,
  TOKEN_SCOPE_NOT_ALLOWED: 403,
  PLAN_UPGRADE_REQUIRED: 403,
  HUMAN_TAKEOVER: 403,
  CHATBOT_LIMIT_REACHED: 403,
  ACCOUNT_INACTIVE: 403,
  ANALYTICS_LOCKED: 403,
  WEBHOOKS_NOT_AVAILABLE: 403,
  CHATBOT_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONVERSATION_CLOSED: 409,
  /** A webhook target was disabled after repeated failures (or a 410); re-enable it before sending to it again. */
  WEBHOOK_TARGET_DISABLED: 409,
  /** The request body is larger than the server accepts. */
  PAYLOAD_TOO_LARGE: 413,
  /** The request's Content-Type is not one this route reads. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  CHATBOT_PAGES_LIMIT_REACHED: 429,
  /** A visitor session token is missing, malformed, expired or logged out: ask for a new session. */
  SESSION_NOT_VALID: 401,
  /** The page's Origin is not among the chatbot's allowed domains. */
  ORIGIN_NOT_ALLOWED: 403,
  /** Too many requests of this kind (visitor codes per address, IP or chatbot); Retry-After says when to try again. */
  RATE_LIMITED: 429,
  /** A visitor's e-mail code is wrong, expired, used, replaced by a newer one or voided by wrong tries (one answer for all). */
  CODE_NOT_VALID: 400,
  /** A host page's signed identity claim is unsigned, wrongly signed, or the chatbot has no identity secret. */
  IDENTITY_NOT_VALID: 401,
  /** Node refused the request before it was read: malformed HTTP. */
  MALFORMED_REQUEST: 400,
  /** The request did not arrive in full within REQUEST_TIMEOUT_MS. */
  REQUEST_TIMEOUT: 408,
  /** The request's headers are larger than the server reads. */
  HEADERS_TOO_LARGE: 431,
  INTERNAL_SERVER_ERROR: 500,
  /** A service we call for the caller (a connected source such as Confluence) is down or throttling. */
  UPSTREAM_UNAVAILABLE: 502,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** One failing field of a VALIDATION_FAILED error: the path to it (keys and array indexes) and why. */
export interface FieldError {
  path: (string | number)[];
  message: string;
}
