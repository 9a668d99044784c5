import { rateLimitOf, retryAfterMs, type RateLimit } from "./ratelimit.js";
import type { ErrorBody, ErrorCode, QuoteCandidate } from "./types.js";

/**
 * An error answer of the API. Each contract code has its own subclass (AddressNotAllowed,
 * QuoteMismatch, RateLimited, ...), so `instanceof` picks the case; `code` is the answer's
 * `error` as sent (a code newer than this SDK gives the base class), or "" when the body was
 * no API error (a proxy's page).
 */
export class SwapRouterError extends Error {
  /** The HTTP status. */
  readonly status: number;
  readonly code: ErrorCode | (string & {});
  /** The human-readable explanation, when the service gave one (it names the field or limit). */
  readonly detail: string | undefined;
  /** The provider's failure behind a 502/504: its HTTP status and call. */
  readonly upstream: ErrorBody["upstream"];
  /** 409 `clientReference in use`: the order that already has this clientReference. */
  readonly orderId: string | undefined;
  /** 409 `quote changed`: the provider's fresh candidate, with its own quoteId, to show the user. */
  readonly quote: QuoteCandidate | undefined;
  /** Retry-After in seconds (429, some 503s). */
  readonly retryAfter: number | undefined;
  /** The key's requests-per-minute bucket after this request. */
  readonly rateLimit: RateLimit | undefined;
  /** X-Request-Id: quote it when reporting a problem. */
  readonly requestId: string | undefined;

  constructor(status: number, body: Partial<ErrorBody>, headers: Headers) {
    const code = body.error ?? "";
    super(`HTTP ${status} ${code || "(no API error body)"}${body.detail ? `: ${body.detail}` : ""}`);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.detail = body.detail;
    this.upstream = body.upstream;
    this.orderId = body.orderId;
    this.quote = body.quote;
    const wait = retryAfterMs(headers.get("Retry-After"), Date.now());
    this.retryAfter = wait === undefined ? undefined : Math.ceil(wait / 1000);
    this.rateLimit = rateLimitOf(headers);
    this.requestId = headers.get("X-Request-Id") ?? undefined;
  }
}

// One class per code. Fix the request on the 400s; do not retry the 403s, 404s, 409s, 410 and
// 422; the client retries RateLimited and the 5xx itself and throws them only when its
// retries are spent (or Retry-After is longer than it waits).

/** 403: the request's Origin is not on the partner's allowlist. */
export class OriginNotAllowed extends SwapRouterError {}
/** 413: the body is over 64 KiB. */
export class BodyTooLarge extends SwapRouterError {}
/** 400: an asset id is not in the routable list; refresh GET /v1/assets. */
export class UnknownAsset extends SwapRouterError {}
/** 404: no provider routes the pair now; refresh the swappable targets, do not retry at once. */
export class UnsupportedPair extends SwapRouterError {}
/** 400: below the provider's minimum; detail names it. */
export class AmountTooLow extends SwapRouterError {}
/** 400: above the liquidity ceiling; detail names it. */
export class AmountTooHigh extends SwapRouterError {}
/** 400: the order names no providerId; the code lists the installation's providers. */
export class ProviderIdRequired extends SwapRouterError {}
/** 400: the deposit hint has no txHash. */
export class MissingTxHash extends SwapRouterError {}
/** 404: no such order for this key's partner. */
export class OrderNotFound extends SwapRouterError {}
/** 410: the order is SUCCESS, REFUNDED or FAILED; a new action needs a new order. */
export class OrderTerminal extends SwapRouterError {}
/** 429: the key's requests per minute (or event streams) are used up; wait retryAfter seconds. */
export class RateLimited extends SwapRouterError {}
/** 504: a provider did not answer in time. */
export class UpstreamTimeout extends SwapRouterError {}
/** 502: a provider failed; `upstream` says how. */
export class UpstreamError extends SwapRouterError {}
/** 500: a failure inside the service; quote requestId when reporting it. */
export class InternalError extends SwapRouterError {}
/** 401: missing, unknown or wrong key, or an expired events token. */
export class Unauthorized extends SwapRouterError {}
/** 400: a malformed body or a bad field; detail names it. */
export class InvalidRequest extends SwapRouterError {}
/** 404: no such route. */
export class NotFound extends SwapRouterError {}
/** 405: the route has no such method. */
export class MethodNotAllowed extends SwapRouterError {}
/** 422: this Idempotency-Key was used with a different body; a new order needs a new key. */
export class IdempotencyKeyReused extends SwapRouterError {}
/** 429: the month's quotes are used up; retryAfter is the seconds to the next UTC month. */
export class QuotaExceeded extends SwapRouterError {}
/** 503: the order archive cannot be read now; retry with backoff. */
export class ArchiveUnavailable extends SwapRouterError {}
/** 409: another order of the partner has this clientReference; `orderId` names it. */
export class ClientReferenceInUse extends SwapRouterError {}
/** 400: the quoteId's candidate expired; quote again. */
export class QuoteExpired extends SwapRouterError {}
/** 409: the provider's binding answer is worse than the quote; `quote` is the fresh candidate. */
export class QuoteChanged extends SwapRouterError {}
/** 400: a field contradicts the quoteId (detail names it), or it is not a quoteId of ours. */
export class QuoteMismatch extends SwapRouterError {}
/** 503: the service cannot take the request now; retry with backoff. */
export class ServiceUnavailable extends SwapRouterError {}
/** 403: sender, recipient or refundTo may not be served; detail names the field. No order exists. */
export class AddressNotAllowed extends SwapRouterError {}

type ErrorClass = new (status: number, body: Partial<ErrorBody>, headers: Headers) => SwapRouterError;

// Keyed by every code of the document with a fixed text: tsc fails here when the document
// gains one. The providerId-required code lists the installation's providers and is matched by
// its prefix (errorFrom).
const classes: { [C in ErrorCode]: ErrorClass } = {
  "origin not allowed": OriginNotAllowed,
  "body too large": BodyTooLarge,
  "unknown originAsset/destinationAsset": UnknownAsset,
  "no provider supports this pair": UnsupportedPair,
  amount_too_low: AmountTooLow,
  amount_too_high: AmountTooHigh,
  "missing txHash": MissingTxHash,
  "order not found": OrderNotFound,
  "order already in terminal state": OrderTerminal,
  "rate limit exceeded": RateLimited,
  "upstream timeout": UpstreamTimeout,
  "upstream error": UpstreamError,
  "internal error": InternalError,
  unauthorized: Unauthorized,
  "invalid request": InvalidRequest,
  "not found": NotFound,
  "method not allowed": MethodNotAllowed,
  "idempotency key reused": IdempotencyKeyReused,
  "quota exceeded": QuotaExceeded,
  "archive unavailable": ArchiveUnavailable,
  "clientReference in use": ClientReferenceInUse,
  "quote expired": QuoteExpired,
  "quote changed": QuoteChanged,
  "quote mismatch": QuoteMismatch,
  "service unavailable": ServiceUnavailable,
  "address not allowed": AddressNotAllowed,
};

const providerIdRequiredPrefix = "providerId required (";

/** The typed error for an answer whose (decoded) body is body. */
export function errorFrom(status: number, body: unknown, headers: Headers): SwapRouterError {
  const parsed: Partial<ErrorBody> = isErrorBody(body) ? body : {};
  return new (classOf(parsed.error))(status, parsed, headers);
}

function classOf(code: string | undefined): ErrorClass {
  if (code === undefined) {
    return SwapRouterError;
  }
  if (code.startsWith(providerIdRequiredPrefix)) {
    return ProviderIdRequired;
  }
  return Object.hasOwn(classes, code) ? classes[code as ErrorCode] : SwapRouterError;
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string";
}

/** A webhook whose signature, timestamp or headers do not verify: answer 401 and ignore it. */
export class InvalidWebhook extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidWebhook";
  }
}

/** A receipt that does not verify against the service's keys, or is not signed with EdDSA. */
export class InvalidReceipt extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidReceipt";
  }
}
