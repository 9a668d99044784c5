// @swaprouter/sdk: the swaprouter /v1 API for TypeScript, in Node.js 20+ and browsers.
export { SwapRouter, type SwapRouterOptions, type CallOptions, type CreateOptions } from "./client.js";
export { EventStream, type EventsOptions, type StreamEvent } from "./events.js";
export { verifyWebhook, type WebhookHeaders } from "./webhooks.js";
export { verifyReceipt } from "./receipts.js";
export { rateLimitOf, type RateLimit } from "./ratelimit.js";
export { defaultRetryPolicy, type RetryPolicy, type RetryInfo } from "./retry.js";
export * from "./errors.js";
export type * from "./types.js";
