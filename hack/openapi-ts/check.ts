// Reads the generated types the way a TypeScript partner would; tsc fails when the document
// stops generating them (an error code typed as unknown, a lost webhook header, a renamed body).
import type { components, paths, webhooks } from "./build/api";

type Asset = components["schemas"]["Asset"];
type Quote = paths["/v1/quote"]["post"]["responses"][200]["content"]["application/json"];
type Order = paths["/v1/order/{id}"]["get"]["responses"][200]["content"]["application/json"];
type Event = webhooks["order.status_changed"]["post"]["requestBody"]["content"]["application/json"];
type SignatureHeaders = webhooks["order.status_changed"]["post"]["parameters"]["header"];
type QuoteTooLow = paths["/v1/quote"]["post"]["responses"][400]["content"]["application/json"];

export function assetLabel(a: Asset): string {
  return `${a.symbol} (${a.assetId})`;
}

export function onEvent(e: Event, h: SignatureHeaders): string {
  const id: string = h["webhook-id"];
  const signature: string = h["webhook-signature"];
  return `${id} ${signature} ${e.orderId}: ${e.previousStatus ?? "new"} -> ${e.status}`;
}

export function isTerminal(o: Order): boolean {
  return o.status === "SUCCESS" || o.status === "REFUNDED" || o.status === "FAILED";
}

export function retryable(code: components["schemas"]["ErrorCode"]): boolean {
  return code === "rate limit exceeded" || code === "upstream timeout" || code === "upstream error" || code === "internal error";
}

export const known: components["schemas"]["ErrorCode"] = "amount_too_low";
// @ts-expect-error the contract's alternative spelling is not a code this API answers
export const unknownCode: components["schemas"]["ErrorCode"] = "rate_limited";
export const tooLow: QuoteTooLow["error"] = "amount_too_low";
export type { Quote };

type Providers = paths["/v1/providers"]["get"]["responses"][200]["content"]["application/json"];
type Receipt = paths["/v1/order/{id}/receipt"]["get"]["responses"][200]["content"]["application/json"];
type ReceiptKeys = paths["/.well-known/jwks.json"]["get"]["responses"][200]["content"]["application/json"];

export function notAvailable(p: Providers): string[] {
  return p.providers.filter((x) => x.status !== "AVAILABLE" || (x.quoteLatencyMs?.p95 ?? 0) > 5000).map((x) => x.displayName);
}

export function receiptKid(r: Receipt, keys: ReceiptKeys): boolean {
  const kid: string = JSON.parse(atob((r.receipt.split(".")[0] ?? "").replace(/-/g, "+").replace(/_/g, "/"))).kid;
  return keys.keys.some((k) => k.kid === kid && k.crv === "Ed25519");
}
