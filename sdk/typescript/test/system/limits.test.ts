import { ok, strictEqual } from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { AddressNotAllowed, RateLimited, type RetryInfo, type Usage } from "../../src/index.js";
import { partner, simulatorUrl, swap } from "./system.js";

test("a 429 is retried after its Retry-After, and the rate-limit headers are exposed", async () => {
  // SDK_LIMITED may send 12 requests a minute: a burst without retries meets the limit.
  const strict = partner("SDK_LIMITED", { retry: false });
  let limited: RateLimited | undefined;
  for (let i = 0; i < 100 && limited === undefined; i++) {
    limited = await strict.getUsage().then(() => undefined, (err: unknown) => {
      if (err instanceof RateLimited) return err;
      throw err;
    });
  }
  ok(limited, "12 requests a minute: a burst of up to 100 meets a 429");
  strictEqual(limited.status, 429);
  strictEqual(limited.code, "rate limit exceeded");
  ok(limited.retryAfter !== undefined && limited.retryAfter >= 1 && limited.retryAfter <= 5, `Retry-After ${limited.retryAfter}`);
  strictEqual(limited.rateLimit?.limit, 12);
  strictEqual(limited.rateLimit?.remaining, 0);
  strictEqual(strict.rateLimit?.remaining, 0, "the client's rate limit is the last answer's");

  // The bucket is empty: the next request of a retrying client meets a 429 and waits it out
  // (unless a token came back just now; then the one after it does).
  const retries: RetryInfo[] = [];
  const patient = partner("SDK_LIMITED", { onRetry: (r) => retries.push(r) });
  let usage: Usage | undefined;
  let waited = 0;
  for (let i = 0; i < 5 && retries.length === 0; i++) {
    const started = performance.now();
    usage = await patient.getUsage();
    waited = performance.now() - started;
  }
  ok(retries.length >= 1, "the client met a 429 and retried");
  for (const r of retries) {
    strictEqual(r.status, 429);
    ok(r.delayMs >= 1000 && r.delayMs % 1000 === 0, `waited Retry-After whole seconds: ${r.delayMs}`);
  }
  ok(waited >= (retries.at(-1)?.delayMs ?? 0), `answered after ${waited} ms`);
  strictEqual(usage?.requestsPerMinute.limit, 12);
  strictEqual(patient.rateLimit?.limit, 12);
});

test("a screened address is a typed AddressNotAllowed, not retried", async () => {
  const listed = `0x${randomBytes(20).toString("hex")}`;
  const sanction = (addresses: string[]) => fetch(`${simulatorUrl}/control/sanctioned`, {
    method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ addresses }),
  });
  strictEqual((await sanction([listed])).status, 204);
  try {
    const retries: RetryInfo[] = [];
    const sr = partner("SDK", { onRetry: (r) => retries.push(r) });
    const refused = await sr.createOrder({ ...swap, sender: listed, providerId: "route_A" }).catch((e: unknown) => e);
    ok(refused instanceof AddressNotAllowed, `${refused}`);
    strictEqual(refused.status, 403);
    strictEqual(refused.code, "address not allowed");
    strictEqual(refused.detail, "sender: this address may not be served");
    strictEqual(retries.length, 0);
    const clean = await sr.createOrder({ ...swap, providerId: "route_A" });
    strictEqual(clean.status, "PENDING", "the same order from a sender not listed is created");
  } finally {
    await sanction([]);
  }
});
