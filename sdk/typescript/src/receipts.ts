import { compactVerify, createLocalJWKSet, createRemoteJWKSet, type CompactVerifyGetKey } from "jose";
import { InvalidReceipt } from "./errors.js";
import type { JSONWebKeySet, ReceiptPayload } from "./types.js";

/** The only algorithm receipts are signed with (Ed25519, RFC 8037). */
const algorithms = ["EdDSA"];

/**
 * Verifies a receipt (the compact JWS of GET /v1/order/{id}/receipt) and returns what it
 * states. keys: the service's JWKS URL (`{baseUrl}/.well-known/jwks.json`, fetched and cached
 * by jose), the key set itself (GET /.well-known/jwks.json, e.g. stored with your records), or
 * a jose key set. Any algorithm but EdDSA, a key not in the set and any changed byte throw
 * InvalidReceipt.
 */
export async function verifyReceipt(receipt: string, keys: string | URL | JSONWebKeySet | CompactVerifyGetKey): Promise<ReceiptPayload> {
  const keySet =
    typeof keys === "function" ? keys
    : typeof keys === "string" || keys instanceof URL ? createRemoteJWKSet(new URL(keys))
    : createLocalJWKSet(keys);
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(receipt, keySet, { algorithms }));
  } catch (cause) {
    throw new InvalidReceipt(`receipt not verified: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  return JSON.parse(new TextDecoder().decode(payload)) as ReceiptPayload;
}
