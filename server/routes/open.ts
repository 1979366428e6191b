/** A public file or page outside the API: no token, not in the envelope, not in the OpenAPI document. */
export const OPEN = { schema: { hide: true }, config: { access: { public: true as const }, raw: true } };
