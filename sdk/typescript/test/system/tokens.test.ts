import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { test } from "node:test";
import { SwapRouter, Unauthorized, type EventsToken } from "../../src/index.js";
import { baseUrl, breakableStreams, deposit, eventually, partner, swap } from "./system.js";

test("a browser's stream takes tokens from its backend, renews one close to expiry before reconnecting, and resumes", async () => {
  const backend = partner("SDK"); // holds the key; the browser never does
  const streams = breakableStreams();
  const issued: EventsToken[] = [];
  const browser = new SwapRouter({
    baseUrl, fetch: streams.fetch,
    eventsToken: async () => {
      const token = await backend.createEventsToken();
      // The first is stated to expire in 30 s, within the minute the SDK keeps to spare.
      issued.push(issued.length === 0 ? { ...token, expiresAt: new Date(Date.now() + 30_000).toISOString() } : token);
      return issued.at(-1) as EventsToken;
    },
  });
  const order = await backend.createOrder({ ...swap, providerId: "route_A" });
  ok(order.depositAddress);
  const stream = browser.events({ orderId: order.id });
  try {
    await stream.open();
    await backend.submitDeposit(order.id, { txHash: await deposit(order.depositAddress, swap.amount) });
    const events = stream[Symbol.asyncIterator]();
    const first = await events.next();
    ok(!first.done);
    const release = streams.hold();
    streams.drop();
    await eventually("the order is SUCCESS", async () => ((await backend.getOrder(order.id)).status === "SUCCESS" ? true : undefined));
    release();
    const second = await events.next();
    ok(!second.done);
    deepStrictEqual([first.value.event.status, second.value.event.status], ["PROCESSING", "SUCCESS"], "PENDING came before the stream opened");
    strictEqual(issued.length, 2, "a second token, taken before reconnecting");
    deepStrictEqual(streams.connections.map((u) => [u.searchParams.get("token"), u.searchParams.get("orderId"), u.searchParams.get("after")]),
      [[issued[0]?.token, order.id, null], [issued[1]?.token, order.id, first.value.position]]);
  } finally {
    stream.close();
  }
});

test("a token the service does not accept is a typed Unauthorized", async () => {
  const backend = partner("SDK");
  const browser = new SwapRouter({
    baseUrl,
    eventsToken: async () => {
      const token = await backend.createEventsToken();
      return { ...token, token: token.token.slice(0, -2) + (token.token.endsWith("AA") ? "BB" : "AA") };
    },
  });
  await rejects(browser.events().open(), Unauthorized);
});
