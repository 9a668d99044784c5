// The page test/tssdk opens in Chromium: the SDK bundled for browsers (esbuild, platform
// browser), holding no key. Its backend (the page's own origin) hands out event tokens.
import { SwapRouter, type OrderStatus } from "../../src/index.js";

declare global {
  interface Window {
    /** Opens the order's event stream; resolves once the service accepted it. */
    follow(orderId: string): Promise<void>;
    /** The statuses the stream gave, in order. */
    statuses: OrderStatus[];
    /** Why the stream ended, if it failed. */
    failure: string;
    /** Verifies a receipt against the service's published keys, in the browser. */
    verify(receipt: string): Promise<string>;
  }
}

const api = new URLSearchParams(location.search).get("api") ?? "";
const sr = new SwapRouter({
  baseUrl: api,
  eventsToken: async () => (await fetch("/events-token", { method: "POST" })).json(),
});

window.statuses = [];
window.failure = "";
window.follow = async (orderId) => {
  const stream = sr.events({ orderId });
  await stream.open();
  void (async () => {
    for await (const { event } of stream) {
      window.statuses.push(event.status);
      if (event.status === "SUCCESS" || event.status === "REFUNDED" || event.status === "FAILED") break;
    }
  })().catch((err: unknown) => (window.failure = String(err)));
};
window.verify = async (receipt) => {
  const stated = await sr.verifyReceipt(receipt);
  return `${stated.orderId} ${stated.status} final=${stated.final}`;
};
