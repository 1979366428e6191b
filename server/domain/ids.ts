import { randomBytes } from 'node:crypto';

/** 128 random bits, URL-safe: ids never reveal order or count. */
export const newId = () => randomBytes(16).toString('base64url');

/** ISO-8601 UTC with milliseconds: the one timestamp format in storage and in the API. */
export const nowIso = () => new Date().toISOString();
