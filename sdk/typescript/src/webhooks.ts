import { Webhook } from "standardwebhooks";
import { InvalidWebhook } from "./errors.js";
import type { OrderStatusChanged } from "./types.js";

/** A request's headers: fetch's Headers, or Node's IncomingHttpHeaders. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a delivery's Standard Webhooks signature (webhook-id, webhook-timestamp within 5
 * minutes of this clock, webhook-signature; any of the space-separated signatures may match,
 * as during a secret rotation) over the raw body, and returns the event. body must be the
 * bytes as received, before any JSON parsing. Throws InvalidWebhook otherwise: answer 401
 * and trust nothing in it. The same event may arrive more than once: process each
 * `webhook-id` (the event's `id`) once, and answer 2xx to the repeats too.
 */
export function verifyWebhook(body: string | Uint8Array, headers: WebhookHeaders, secret: string): OrderStatusChanged {
  let payload: string;
  try {
    payload = typeof body === "string" ? body : new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch (cause) {
    throw new InvalidWebhook("webhook body is not UTF-8", { cause });
  }
  let verified: unknown;
  try {
    verified = new Webhook(secret).verify(payload, flatten(headers));
  } catch (cause) {
    throw new InvalidWebhook(`webhook not verified: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  return verified as OrderStatusChanged;
}

function flatten(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined) {
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(" ") : value;
    }
  }
  return out;
}
