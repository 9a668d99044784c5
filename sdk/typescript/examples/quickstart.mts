// quickstart.mts: one order from quote to SUCCESS with @swaprouter/sdk against `make run`,
// followed on the event stream, its webhooks and its receipt verified.
import { createServer } from "node:http";
import { SwapRouter, verifyReceipt, verifyWebhook, type OrderStatusChanged } from "@swaprouter/sdk";

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}
const baseUrl = env("SWAPROUTER_URL");
const sr = new SwapRouter({ baseUrl, keyId: env("SWAPROUTER_KEY_ID"), secret: env("SWAPROUTER_API_SECRET") });

// Webhooks: verify each delivery on its raw bytes before trusting it; answer 2xx to repeats too.
const webhooks = new Map<string, OrderStatusChanged>();
const receiver = createServer((req, res) => {
  const body: Buffer[] = [];
  req.on("data", (chunk: Buffer) => body.push(chunk));
  req.on("end", () => {
    try {
      const event = verifyWebhook(Buffer.concat(body), req.headers, env("SWAPROUTER_WEBHOOK_SECRET"));
      webhooks.set(event.id, event); // at least once: keyed by event id
      res.writeHead(204).end();
    } catch {
      res.writeHead(401).end(); // not signed by the service: ignore it
    }
  });
}).listen(Number(env("WEBHOOK_PORT")), "127.0.0.1");

// The event stream, opened before the order so that it sees each of its transitions.
const stream = sr.events();
await stream.open();

// A quote, and an order bound to its best candidate (retries keep one Idempotency-Key).
const swap = {
  originAsset: "eip155:1/slip44:60", // ETH on Ethereum
  destinationAsset: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", // SOL
  amount: "100000000000000000", // 0.1 ETH
};
const { best } = await sr.requestQuote({ ...swap, dry: true });
if (!best) throw new Error("no provider quotes this pair now");
const order = await sr.createOrder({
  ...swap, providerId: best.providerId, quoteId: best.quoteId,
  sender: "0x1111111111111111111111111111111111111111", recipient: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
});
console.log(`order ${order.id}: deposit to ${order.depositAddress}`);

// The user pays (here on the simulated chain of make run) and we pass the transaction on.
const paid = await fetch(`${env("SIMULATOR_URL")}/chain/deposits`, {
  method: "POST", headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ depositAddress: order.depositAddress, amount: swap.amount }),
});
const { txHash } = (await paid.json()) as { txHash: string };
await sr.submitDeposit(order.id, { txHash });

// Each transition once, in order; stream.position is where to resume after a restart.
for await (const { event } of stream) {
  if (event.orderId !== order.id) continue;
  console.log(`event ${event.previousStatus || "(new)"} -> ${event.status}`);
  if (event.status === "SUCCESS" || event.status === "REFUNDED" || event.status === "FAILED") break;
}

// The webhooks of the same transitions arrive beside the stream.
for (let i = 0; i < 120 && ![...webhooks.values()].some((e) => e.orderId === order.id && e.status === "SUCCESS"); i++) {
  await new Promise((resolve) => setTimeout(resolve, 500));
}
const hooks = [...webhooks.values()].filter((e) => e.orderId === order.id).sort((a, b) => a.sequence - b.sequence);
console.log(`webhooks verified: ${hooks.map((e) => e.status).join(" ")}`);
receiver.close();

// The receipt: the order as the service signed it, checked against its published keys.
const { receipt } = await sr.getOrderReceipt(order.id);
const stated = await verifyReceipt(receipt, `${baseUrl}/.well-known/jwks.json`);
console.log(`receipt verified: ${stated.orderId} ${stated.status} final=${stated.final} amountOut=${stated.amountOut}`);
console.log(`requests left this minute: ${sr.rateLimit?.remaining}`);
