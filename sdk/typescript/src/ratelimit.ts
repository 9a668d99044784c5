/** The state of a key's requests-per-minute bucket, as the last answer stated it. */
export interface RateLimit {
  /** Requests allowed per minute (X-RateLimit-Limit). */
  limit: number;
  /** Requests left now (X-RateLimit-Remaining). */
  remaining: number;
  /** When the bucket is full again (X-RateLimit-Reset, Unix seconds). */
  reset: Date;
}

/** The X-RateLimit-* headers of an answer; undefined when it carries none (401s, the JWKS). */
export function rateLimitOf(headers: Headers): RateLimit | undefined {
  const limit = wholeNumber(headers.get("X-RateLimit-Limit"));
  const remaining = wholeNumber(headers.get("X-RateLimit-Remaining"));
  const reset = wholeNumber(headers.get("X-RateLimit-Reset"));
  if (limit === undefined || remaining === undefined || reset === undefined) {
    return undefined;
  }
  return { limit, remaining, reset: new Date(reset * 1000) };
}

/**
 * Retry-After in milliseconds from nowMs: whole seconds (what this API sends) or an HTTP date;
 * undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === "") {
    return undefined;
  }
  const seconds = wholeNumber(value);
  if (seconds !== undefined) {
    return seconds * 1000;
  }
  // An HTTP date names its day and month; Date.parse alone takes "-5" for the year -5.
  const at = /[A-Za-z]/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

function wholeNumber(value: string | null): number | undefined {
  if (value === null || !/^\s*\d+\s*$/.test(value)) {
    return undefined;
  }
  return Number(value);
}
