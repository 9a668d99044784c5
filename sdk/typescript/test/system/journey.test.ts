import { deepStrictEqual, notStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { test } from "node:test";
import {
  InvalidReceipt, InvalidWebhook, verifyReceipt, verifyWebhook, type OrderStatusChanged, type StreamEvent,
} from "../../src/index.js";
import { baseUrl, breakableStreams, deposit, eventually, partner, swap, webhook } from "./system.js";

/** The partner's webhook endpoint: verifies each delivery with verifyWebhook, keeps each event id once. */
async function webhookReceiver() {
  const events = new Map<string, OrderStatusChanged>();
  const deliveries: { body: string; headers: IncomingHttpHeaders }[] = [];
  let rejected = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      try {
        const event = verifyWebhook(body, req.headers, webhook.secret);
        deliveries.push({ body: body.toString("utf8"), headers: req.headers });
        if (!events.has(event.id)) {
          events.set(event.id, event);
        }
        res.writeHead(204).end();
      } catch (err) {
        rejected++;
        res.writeHead(err instanceof InvalidWebhook ? 401 : 500).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(webhook.port, "127.0.0.1", resolve));
  return {
    of: (orderId: string) => [...events.values()].filter((e) => e.orderId === orderId),
    deliveries,
    rejected: () => rejected,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The next event of orderId the iterator yields. */
async function nextOf(events: AsyncIterator<StreamEvent>, orderId: string): Promise<StreamEvent> {
  for (;;) {
    const next = await events.next();
    if (next.done) {
      throw new Error("the stream ended");
    }
    if (next.value.event.orderId === orderId) {
      return next.value;
    }
  }
}

test("an order to SUCCESS: the stream, broken and resumed midway, yields each transition once; its webhooks and receipt verify", async () => {
  const receiver = await webhookReceiver();
  const streams = breakableStreams();
  const sr = partner("SDK_HOOKS", { fetch: streams.fetch });
  const stream = sr.events();
  try {
    await stream.open();
    const quote = await sr.requestQuote({ ...swap, dry: true, preference: "speed" });
    ok(quote.bestChosenBy === "speed" || quote.bestChosenBy === "price", `speed, or price without settled orders: ${quote.bestChosenBy}`);
    const best = quote.best;
    ok(best?.quoteId, "the best candidate binds an order with its quoteId");
    const order = await sr.createOrder({ ...swap, providerId: best.providerId, quoteId: best.quoteId });
    strictEqual(order.status, "PENDING");
    const address = order.depositAddress;
    ok(address, "a 201 carries the deposit address");

    const events = stream[Symbol.asyncIterator]();
    const seen = [await nextOf(events, order.id)];
    strictEqual(seen[0]?.event.status, "PENDING");

    // The connection breaks; the order settles before the stream can reconnect.
    const release = streams.hold();
    streams.drop();
    await sr.submitDeposit(order.id, { txHash: await deposit(address, swap.amount) });
    await eventually("the order is SUCCESS", async () => ((await sr.getOrder(order.id)).status === "SUCCESS" ? true : undefined));
    release();
    while (seen.at(-1)?.event.status !== "SUCCESS") {
      seen.push(await nextOf(events, order.id));
    }

    deepStrictEqual(seen.map((e) => [e.event.status, e.event.previousStatus, e.event.sequence]),
      [["PENDING", null, 1], ["PROCESSING", "PENDING", 2], ["SUCCESS", "PROCESSING", 3]]);
    strictEqual(new Set(seen.map((e) => e.event.id)).size, 3, "three events, three ids");
    strictEqual(streams.connections.length, 2, "one reconnection");
    strictEqual(streams.connections[1]?.searchParams.get("after"), seen[0]?.position, "resumed after the last event read");
    strictEqual(stream.position, seen[2]?.position);

    // The webhooks of the same transitions, each verified by verifyWebhook.
    const hooks = await eventually("the SUCCESS webhook", async () => {
      const got = receiver.of(order.id);
      return got.some((e) => e.status === "SUCCESS") ? got : undefined;
    });
    deepStrictEqual(hooks.map((e) => [e.id, e.status]), seen.map((e) => [e.event.id, e.event.status]), "the stream's events are the webhooks'");
    strictEqual(receiver.rejected(), 0);
    const delivery = receiver.deliveries.find((d) => d.body.includes(order.id));
    ok(delivery);
    // Another order's id in the signed body: its last character changed (to one it is not).
    const forged = order.id.slice(0, -1) + (order.id.endsWith("a") ? "b" : "a");
    throws(() => verifyWebhook(delivery.body.replace(order.id, forged), delivery.headers, webhook.secret), InvalidWebhook);

    // The receipt: verified with the published keys, three ways.
    const { receipt } = await sr.getOrderReceipt(order.id);
    const stated = await verifyReceipt(receipt, `${baseUrl}/.well-known/jwks.json`);
    strictEqual(stated.orderId, order.id);
    strictEqual(stated.status, "SUCCESS");
    strictEqual(stated.final, true);
    strictEqual(stated.depositAddress, address);
    strictEqual(stated.quoteId, best.quoteId);
    deepStrictEqual(stated.history.map((h) => h.status), ["PENDING", "PROCESSING", "SUCCESS"]);
    deepStrictEqual(await sr.verifyReceipt(receipt), stated);
    deepStrictEqual(await verifyReceipt(receipt, await sr.receiptKeys()), stated);
    const [header, payload, signature] = receipt.split(".");
    const changed = Buffer.from(JSON.stringify({ ...stated, amountOut: "1" + (stated.amountOut ?? "") })).toString("base64url");
    notStrictEqual(changed, payload);
    await rejects(verifyReceipt(`${header}.${changed}.${signature}`, `${baseUrl}/.well-known/jwks.json`), InvalidReceipt);
  } finally {
    stream.close();
    await receiver.close();
  }
});
