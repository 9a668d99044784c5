import { deepStrictEqual, throws } from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { test } from "node:test";
import { InvalidWebhook } from "../../src/errors.js";
import { verifyWebhook } from "../../src/webhooks.js";

// Signed here by the Standard Webhooks rule itself (HMAC-SHA256 over "id.timestamp.body" with
// the base64-decoded part after whsec_), not by the library under test.
const key = randomBytes(24);
const secret = `whsec_${key.toString("base64")}`;
const event = {
  version: "1", id: "evt_0123", type: "order.status_changed", orderId: "ord_aaaaaaaaaaaaaaaaaaaaaaaaaa", providerId: "route_A",
  status: "SUCCESS", previousStatus: "PROCESSING", inTxHashes: ["0xin"], outTxHashes: ["out"], occurredAt: "2026-11-27T12:00:00.123456Z", sequence: 3,
};
const body = JSON.stringify(event);

function sign(id: string, at: number, payload: string, withKey: Buffer = key): string {
  return `v1,${createHmac("sha256", withKey).update(`${id}.${at}.${payload}`).digest("base64")}`;
}

function headers(at = Math.floor(Date.now() / 1000), signature = sign(event.id, at, body)) {
  return { "webhook-id": event.id, "webhook-timestamp": String(at), "webhook-signature": signature };
}

test("verifyWebhook returns the event of a delivery signed with the secret", () => {
  deepStrictEqual(verifyWebhook(body, headers(), secret), event, "Node's IncomingHttpHeaders");
  deepStrictEqual(verifyWebhook(new TextEncoder().encode(body), new Headers(headers()), secret), event, "fetch's Headers and raw bytes");
  const upper = Object.fromEntries(Object.entries(headers()).map(([k, v]) => [k.toUpperCase(), v]));
  deepStrictEqual(verifyWebhook(body, upper, secret), event, "header names in any case");
});

test("during a secret rotation either signature verifies", () => {
  const at = Math.floor(Date.now() / 1000);
  const both = `${sign(event.id, at, body, randomBytes(24))} ${sign(event.id, at, body)}`;
  deepStrictEqual(verifyWebhook(body, headers(at, both), secret), event);
});

test("verifyWebhook refuses what it cannot trust", () => {
  const at = Math.floor(Date.now() / 1000);
  const cases: [string, () => unknown][] = [
    ["a changed byte", () => verifyWebhook(body.replace("SUCCESS", "SUCCESs"), headers(at), secret)],
    ["another secret", () => verifyWebhook(body, headers(at), `whsec_${randomBytes(24).toString("base64")}`)],
    ["another event id", () => verifyWebhook(body, { ...headers(at), "webhook-id": "evt_other" }, secret)],
    ["a timestamp 6 minutes old", () => verifyWebhook(body, headers(at - 360, sign(event.id, at - 360, body)), secret)],
    ["a timestamp 6 minutes ahead", () => verifyWebhook(body, headers(at + 360, sign(event.id, at + 360, body)), secret)],
    ["no signature", () => verifyWebhook(body, { "webhook-id": event.id, "webhook-timestamp": String(at) }, secret)],
    ["bytes that are not UTF-8", () => verifyWebhook(new Uint8Array([0x7b, 0xff, 0x7d]), headers(at), secret)],
  ];
  for (const [name, verify] of cases) {
    throws(verify, InvalidWebhook, name);
  }
});
