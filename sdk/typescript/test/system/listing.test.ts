import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import type { Order, RetryInfo } from "../../src/index.js";
import { partner, swap } from "./system.js";

test("orders() reads every order across pages, following nextCursor", async () => {
  const pages: URL[] = [];
  const sr = partner("SDK_PAGES", {
    fetch: (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/v1/orders") pages.push(url);
      return fetch(request);
    },
  });
  const created: Order[] = [];
  for (let i = 0; i < 5; i++) {
    created.push(await sr.createOrder({ ...swap, providerId: "route_A" }));
  }
  const listed: Order[] = [];
  for await (const order of sr.orders({ limit: 2 })) {
    listed.push(order);
  }
  deepStrictEqual(listed.map((o) => o.id).sort(), created.map((o) => o.id).sort(), "each order once");
  for (let i = 1; i < listed.length; i++) {
    ok(Date.parse(listed[i - 1]?.createdAt ?? "") >= Date.parse(listed[i]?.createdAt ?? ""), "newest first");
  }
  strictEqual(pages.length, 3, "pages of 2, 2 and 1");
  deepStrictEqual(pages.map((u) => [u.searchParams.get("limit"), u.searchParams.has("cursor")]), [["2", false], ["2", true], ["2", true]]);
});

test("an order whose answer was lost is retried with the same Idempotency-Key and exists once", async () => {
  let lost: { key: string | null; order: Order } | undefined;
  const retries: RetryInfo[] = [];
  const sr = partner("SDK", {
    onRetry: (r) => retries.push(r),
    fetch: async (request) => {
      const response = await fetch(request);
      if (lost === undefined && request.method === "POST" && new URL(request.url).pathname === "/v1/order") {
        // The service made the order; its answer never reaches the partner.
        lost = { key: request.headers.get("Idempotency-Key"), order: (await response.json()) as Order };
        throw new TypeError("the connection broke before the answer arrived");
      }
      return response;
    },
  });
  const clientReference = `lost-answer-${randomBytes(6).toString("hex")}`;
  const order = await sr.createOrder({ ...swap, providerId: "route_A", clientReference });
  ok(lost?.key, "the first attempt carried an Idempotency-Key");
  strictEqual(order.id, lost.order.id, "the retry answered the order the first attempt made");
  strictEqual(order.depositAddress, lost.order.depositAddress);
  deepStrictEqual(retries.map((r) => [r.attempt, r.error instanceof TypeError]), [[1, true]]);
  deepStrictEqual((await sr.listOrders({ clientReference })).orders.map((o) => o.id), [order.id], "one order");
});

test("every operation of the served document is a method of the client", async () => {
  const sr = partner("SDK");
  const doc = (await sr.openAPI()) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const named: Record<string, string> = { streamEvents: "events" };
  const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).filter(([method]) => method === "get" || method === "post")
      .map(([, op]) => ({ path, id: op.operationId ?? "" })));
  ok(operations.length >= 17);
  const missing = operations
    .filter((o) => o.path.startsWith("/v1/") || o.path === "/.well-known/jwks.json")
    .map((o) => named[o.id] ?? o.id)
    .filter((name) => typeof (sr as unknown as Record<string, unknown>)[name] !== "function");
  deepStrictEqual(missing, []);
});
