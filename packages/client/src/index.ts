/**
 * @parley/client: the typed client of the Parley API (v2). `createParleyClient` for calls,
 * `deviceLogin` for a token without a browser on this device; webhook verification is
 * `@parley/client/webhooks` (Node only).
 */
export {
  createParleyClient,
  type ApiPaths,
  type ListItem,
  type ListPath,
  type ParleyClient,
  type ParleyClientOptions,
  type ResponseData,
} from './client.js';
export {
  deviceLogin,
  DeviceLoginError,
  revokeToken,
  startDeviceLogin,
  type DeviceAuthorization,
  type DeviceLoginOptions,
  type DevicePrompt,
  type DeviceToken,
  type OAuthErrorCode,
} from './device-login.js';
export { ParleyError, type ErrorCode, type ValidationDetail } from './errors.js';
export type { RetryInfo, RetryOptions } from './retry.js';
export type { components, operations, paths } from './generated/api.js';

import type { components } from './generated/api.js';
/** The API's named shapes: `Schemas['Chatbot']`, `Schemas['Conversation']`, `Schemas['Message']`… */
export type Schemas = components['schemas'];
