import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { test } from "node:test";
import { rateLimitOf, retryAfterMs } from "../../src/ratelimit.js";
import { backoff, defaultRetryPolicy, retryDelay, type Outcome } from "../../src/retry.js";

const now = Date.parse("2026-11-27T12:00:00Z");
const answer = (status: number, retryAfter: string | null = null): Outcome => ({ status, retryAfter });
const lost: Outcome = { error: new TypeError("fetch failed") };

test("retryDelay follows the contract's retry strategy", () => {
  const cases: { name: string; attempt: number; outcome: Outcome; repeatable: boolean; random: number; want: number | undefined }[] = [
    { name: "429 waits Retry-After", attempt: 0, outcome: answer(429, "7"), repeatable: false, random: 0.9, want: 7000 },
    { name: "429 as an HTTP date", attempt: 0, outcome: answer(429, "Fri, 27 Nov 2026 12:00:03 GMT"), repeatable: false, random: 0, want: 3000 },
    { name: "429 without Retry-After backs off", attempt: 1, outcome: answer(429), repeatable: false, random: 0, want: 1000 },
    { name: "429 longer than the client waits (the monthly quota) is thrown", attempt: 0, outcome: answer(429, "86400"), repeatable: true, random: 0, want: undefined },
    { name: "502 of a read: base 500 ms", attempt: 0, outcome: answer(502), repeatable: true, random: 0, want: 500 },
    { name: "504 doubles", attempt: 2, outcome: answer(504), repeatable: true, random: 0, want: 2000 },
    { name: "500 with the most jitter: +30 %", attempt: 3, outcome: answer(500), repeatable: true, random: 0.999999, want: 5200 },
    { name: "503 honours Retry-After", attempt: 0, outcome: answer(503, "2"), repeatable: true, random: 0, want: 2000 },
    { name: "5xx of a request that may not repeat", attempt: 0, outcome: answer(500), repeatable: false, random: 0, want: undefined },
    { name: "a lost answer of a read", attempt: 0, outcome: lost, repeatable: true, random: 0.5, want: 575 },
    { name: "a lost answer of a request that may not repeat", attempt: 0, outcome: lost, repeatable: false, random: 0, want: undefined },
    { name: "at most 4 retries", attempt: 4, outcome: answer(502), repeatable: true, random: 0, want: undefined },
    { name: "not even a 429 after 4 retries", attempt: 4, outcome: answer(429, "1"), repeatable: true, random: 0, want: undefined },
    { name: "400s are fixed, not retried", attempt: 0, outcome: answer(400), repeatable: true, random: 0, want: undefined },
    { name: "403 address not allowed", attempt: 0, outcome: answer(403), repeatable: true, random: 0, want: undefined },
    { name: "409 quote changed", attempt: 0, outcome: answer(409), repeatable: true, random: 0, want: undefined },
    { name: "success", attempt: 0, outcome: answer(201), repeatable: true, random: 0, want: undefined },
    { name: "202: the order exists, never repeated", attempt: 0, outcome: answer(202), repeatable: true, random: 0, want: undefined },
  ];
  for (const c of cases) {
    strictEqual(retryDelay(c.attempt, c.outcome, c.repeatable, defaultRetryPolicy, c.random, now), c.want, c.name);
  }
});

test("backoff doubles from 500 ms up to the 8 s cap, jitter added on top", () => {
  deepStrictEqual([0, 1, 2, 3, 4, 5, 9].map((a) => backoff(a, defaultRetryPolicy, 0)), [500, 1000, 2000, 4000, 8000, 8000, 8000]);
  strictEqual(backoff(4, defaultRetryPolicy, 0.5), 9200);
});

test("retryAfterMs reads seconds and HTTP dates", () => {
  strictEqual(retryAfterMs("30", now), 30_000);
  strictEqual(retryAfterMs(" 0 ", now), 0);
  strictEqual(retryAfterMs("Fri, 27 Nov 2026 11:59:00 GMT", now), 0, "a date in the past is now");
  strictEqual(retryAfterMs(null, now), undefined);
  strictEqual(retryAfterMs("soon", now), undefined);
  strictEqual(retryAfterMs("-5", now), undefined);
});

test("rateLimitOf reads the X-RateLimit-* headers", () => {
  deepStrictEqual(rateLimitOf(new Headers({ "X-RateLimit-Limit": "300", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1795780800" })),
    { limit: 300, remaining: 0, reset: new Date("2026-11-27T12:00:00Z") });
  strictEqual(rateLimitOf(new Headers({ "X-RateLimit-Limit": "300" })), undefined, "a 401 carries none");
});
