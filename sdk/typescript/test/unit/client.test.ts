import { deepStrictEqual, notStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { test } from "node:test";
import { SwapRouter, type SwapRouterOptions } from "../../src/client.js";
import { AddressNotAllowed, InternalError, ProviderIdRequired, QuotaExceeded, QuoteChanged, RateLimited, SwapRouterError, UpstreamError } from "../../src/errors.js";
import type { RetryInfo } from "../../src/retry.js";
import { json, order, orderRequest, scripted, type Answer } from "./fake.js";

const base = "http://swaprouter.test";

function client(answers: Answer[], options: Partial<SwapRouterOptions> = {}) {
  const fake = scripted(...answers);
  const retries: RetryInfo[] = [];
  const sr = new SwapRouter({
    baseUrl: base, keyId: "acme-key-1", secret: "sk_test", fetch: fake.fetch, retry: { baseDelayMs: 1 },
    onRetry: (r) => retries.push(r), ...options,
  });
  return { sr, requests: fake.requests, retries, left: fake.left };
}

test("an order creation keeps its Idempotency-Key across retries, and the next creation gets a new one", async () => {
  const { sr, requests, retries } = client([
    json(502, { error: "upstream error" }), new TypeError("fetch failed"), json(201, order), json(201, order),
  ]);
  deepStrictEqual(await sr.createOrder(orderRequest), order);
  strictEqual(requests.length, 3);
  const key = requests[0]?.headers.get("Idempotency-Key");
  ok(key && /^[0-9a-f-]{36}$/.test(key), `a random key: ${key}`);
  deepStrictEqual(requests.map((r) => r.headers.get("Idempotency-Key")), [key, key, key]);
  deepStrictEqual(await requests[2]?.json(), orderRequest, "the body of the retry is the same");
  deepStrictEqual(retries.map((r) => [r.attempt, r.status, r.error instanceof TypeError]), [[1, 502, false], [2, undefined, true]]);

  await sr.createOrder(orderRequest);
  notStrictEqual(requests[3]?.headers.get("Idempotency-Key"), key, "another order, another key");
  strictEqual(requests[3]?.headers.get("X-Key-Id"), "acme-key-1");
  strictEqual(requests[3]?.headers.get("Authorization"), "Bearer sk_test");
});

test("the caller's own Idempotency-Key is sent, also on a dry:false quote; a dry quote carries none", async () => {
  const { sr, requests } = client([json(201, order), json(201, { order, quote: {} }), json(200, { candidates: [], errors: [] })]);
  await sr.createOrder(orderRequest, { idempotencyKey: "checkout-42" });
  await sr.requestQuote({ ...orderRequest, dry: false }, { idempotencyKey: "checkout-43" });
  await sr.requestQuote({ ...orderRequest, dry: true, preference: "reliability" });
  deepStrictEqual(requests.map((r) => r.headers.get("Idempotency-Key")), ["checkout-42", "checkout-43", null]);
  strictEqual((await requests[2]?.json()).preference, "reliability", "the preference is sent as given");
});

test("reads and dry quotes are repeated after a 5xx or a lost answer; a redelivery is not", async () => {
  const { sr, requests } = client([
    json(503, { error: "service unavailable" }), json(200, { candidates: [], errors: [] }),
    new TypeError("fetch failed"), json(200, order),
  ]);
  await sr.requestQuote({ originAsset: order.originAsset, destinationAsset: order.destinationAsset, amount: "1" });
  await sr.getOrder(order.id);
  strictEqual(requests.length, 4);

  const once = client([json(500, { error: "internal error" })]);
  await rejects(once.sr.redeliver("evt_x"), InternalError);
  strictEqual(once.requests.length, 1, "a second attempt could send the event twice");
  const lost = client([new TypeError("fetch failed")]);
  await rejects(lost.sr.redeliver("evt_x"), TypeError);
  strictEqual(lost.requests.length, 1);
});

test("a 429 is waited out for Retry-After seconds, even on a request that may not repeat", async () => {
  const limited = { "Retry-After": "1", "X-RateLimit-Limit": "12", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1795780800" };
  const { sr, requests, retries } = client([json(429, { error: "rate limit exceeded" }, limited), json(202, { id: "del_1" })]);
  const started = Date.now();
  await sr.redeliver("evt_x");
  ok(Date.now() - started >= 1000, "waited a second");
  strictEqual(requests.length, 2);
  deepStrictEqual(retries.map((r) => [r.delayMs, r.status]), [[1000, 429]]);
  deepStrictEqual(sr.rateLimit, { limit: 12, remaining: 0, reset: new Date(1795780800 * 1000) });
});

test("the monthly quota's Retry-After is not waited out: QuotaExceeded at once", async () => {
  const { sr, requests } = client([json(429, { error: "quota exceeded", detail: "10000 quotes this month" }, { "Retry-After": "345600" })]);
  const err = await sr.requestQuote({ originAsset: "a", destinationAsset: "b", amount: "1" }).catch((e: unknown) => e);
  ok(err instanceof QuotaExceeded);
  strictEqual(err.retryAfter, 345600);
  strictEqual(requests.length, 1);
});

test("retries spent, the last answer is thrown as its typed error", async () => {
  const { sr, requests } = client(Array.from({ length: 5 }, () => json(502, { error: "upstream error", upstream: { status: 503, path: "POST /v0/quote" } })));
  const err = await sr.getOrder(order.id).catch((e: unknown) => e);
  ok(err instanceof UpstreamError);
  deepStrictEqual(err.upstream, { status: 503, path: "POST /v0/quote" });
  strictEqual(requests.length, 5, "the first attempt and 4 retries");
});

test("retry: false sends once", async () => {
  const { sr, requests } = client([json(503, { error: "service unavailable" })], { retry: false });
  await rejects(sr.getUsage(), SwapRouterError);
  strictEqual(requests.length, 1);
});

test("errors carry the contract's code, detail, request id and rate limit", async () => {
  const headers = { "X-Request-Id": "req-1", "X-RateLimit-Limit": "300", "X-RateLimit-Remaining": "299", "X-RateLimit-Reset": "1795780800" };
  const { sr } = client([
    json(403, { error: "address not allowed", detail: "sender: this address may not be served" }, headers),
    json(409, { error: "quote changed", detail: "worse", quote: { providerId: "route_A", amountIn: "1", amountOut: "2", quoteId: "q2" } }),
    json(418, { error: "a code from a newer service" }),
    new Response("<html>bad gateway</html>", { status: 400 }),
  ]);
  const blocked = await sr.createOrder(orderRequest).catch((e: unknown) => e);
  ok(blocked instanceof AddressNotAllowed && blocked instanceof SwapRouterError && blocked instanceof Error);
  strictEqual(blocked.name, "AddressNotAllowed");
  strictEqual(blocked.status, 403);
  strictEqual(blocked.code, "address not allowed");
  strictEqual(blocked.detail, "sender: this address may not be served");
  strictEqual(blocked.requestId, "req-1");
  strictEqual(blocked.rateLimit?.remaining, 299);
  strictEqual(blocked.message, "HTTP 403 address not allowed: sender: this address may not be served");

  const changed = await sr.createOrder(orderRequest).catch((e: unknown) => e);
  ok(changed instanceof QuoteChanged);
  strictEqual(changed.quote?.quoteId, "q2");

  const newer = await sr.getOrder(order.id).catch((e: unknown) => e);
  ok(newer instanceof SwapRouterError && !(newer instanceof RateLimited));
  strictEqual(newer.constructor, SwapRouterError);
  strictEqual(newer.code, "a code from a newer service");

  const page = await sr.getOrder(order.id).catch((e: unknown) => e);
  ok(page instanceof SwapRouterError);
  strictEqual(page.code, "");
});

test("providerId required is recognised whatever providers the installation lists", async () => {
  const { sr } = client([
    json(400, { error: "providerId required (route_A | route_B)" }),
    json(400, { error: "providerId required (relay | route_A | route_B)" }),
  ]);
  for (const code of ["providerId required (route_A | route_B)", "providerId required (relay | route_A | route_B)"]) {
    const err = await sr.createOrder(orderRequest).catch((e: unknown) => e);
    ok(err instanceof ProviderIdRequired);
    strictEqual(err.code, code);
  }
});

test("an abort ends the wait for a retry at once", async () => {
  const { sr, requests } = client([json(429, { error: "rate limit exceeded" }, { "Retry-After": "30" })]);
  const abort = new AbortController();
  const pending = sr.getUsage({ signal: abort.signal });
  setImmediate(() => abort.abort(new Error("user left")));
  await rejects(pending, /user left/);
  strictEqual(requests.length, 1);
});

test("orders() follows nextCursor to the last page", async () => {
  const page = (ids: string[], nextCursor: string | null) => json(200, { orders: ids.map((id) => ({ ...order, id })), nextCursor });
  const { sr, requests } = client([page(["ord_3", "ord_2"], "c1"), page(["ord_1"], "c2"), page([], null)]);
  const ids: string[] = [];
  for await (const o of sr.orders({ status: "PENDING", limit: 2 })) {
    ids.push(o.id);
  }
  deepStrictEqual(ids, ["ord_3", "ord_2", "ord_1"]);
  deepStrictEqual(requests.map((r) => new URL(r.url).search), ["?status=PENDING&limit=2", "?status=PENDING&limit=2&cursor=c1", "?status=PENDING&limit=2&cursor=c2"]);
});
