import { retryAfterMs } from "./ratelimit.js";

/** When and how often a failed request is sent again (the contract's retry strategy). */
export interface RetryPolicy {
  /** Retries after the first attempt; the contract allows at most 4. 0 turns retries off. */
  maxRetries: number;
  /** The first backoff delay; each further one doubles, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Up to this share of a backoff delay is added at random, so clients spread out. */
  jitter: number;
  /**
   * The longest Retry-After a 429 or 503 is waited out; a longer one (the monthly quote cap
   * waits for the next month) is thrown at once as the typed error, its retryAfter set.
   */
  maxRetryAfterMs: number;
}

/** The contract's numbers: base 500 ms, cap 8 s, at most 4 retries, up to 30 % jitter. */
export const defaultRetryPolicy: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  jitter: 0.3,
  maxRetryAfterMs: 60_000,
});

/** What one attempt ended with: an HTTP answer, or no answer at all. */
export type Outcome = { status: number; retryAfter: string | null } | { error: unknown };

/** The answers the contract says to retry with backoff: failures inside the service or a provider. */
const transientStatuses = new Set([500, 502, 503, 504]);

/**
 * The wait before attempt number attempt+1, or undefined when the request must not be sent
 * again. A 429 was refused before anything happened, so every request may repeat it after
 * Retry-After. A 5xx or a lost answer may have done what was asked, so only a repeatable
 * request (a read, or one carrying an Idempotency-Key) is sent again. random is in [0, 1).
 */
export function retryDelay(
  attempt: number,
  outcome: Outcome,
  repeatable: boolean,
  policy: RetryPolicy,
  random: number,
  nowMs: number,
): number | undefined {
  if (attempt >= policy.maxRetries) {
    return undefined;
  }
  if ("error" in outcome) {
    return repeatable ? backoff(attempt, policy, random) : undefined;
  }
  if (outcome.status !== 429 && !(transientStatuses.has(outcome.status) && repeatable)) {
    return undefined;
  }
  const stated = retryAfterMs(outcome.retryAfter, nowMs);
  if (stated === undefined) {
    return backoff(attempt, policy, random);
  }
  return stated <= policy.maxRetryAfterMs ? stated : undefined;
}

/** The exponential backoff before retry number attempt+1 (0-based), jitter added. */
export function backoff(attempt: number, policy: RetryPolicy, random: number): number {
  const delay = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(delay + delay * policy.jitter * random);
}

/** Resolves after ms, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** What the client tells onRetry before it waits and sends a request again (or reopens a stream). */
export interface RetryInfo {
  /** The retry about to be made, 1 for the first (a stream counts its reconnections in a row). */
  attempt: number;
  /** How long the client waits first. */
  delayMs: number;
  method: string;
  url: string;
  /** The failed attempt's HTTP status; undefined when no answer came (error says why). */
  status?: number;
  error?: unknown;
}
