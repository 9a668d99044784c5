import { deepStrictEqual, rejects } from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { CompactSign, exportJWK, generateKeyPair } from "jose";
import { InvalidReceipt } from "../../src/errors.js";
import { verifyReceipt } from "../../src/receipts.js";
import type { JSONWebKeySet } from "../../src/types.js";

const statement = { orderId: "ord_aaaaaaaaaaaaaaaaaaaaaaaaaa", status: "SUCCESS", final: true, amountOut: "1520000000" };

async function signer(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "EdDSA", use: "sig" };
  const sign = (payload: unknown) =>
    new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: "EdDSA", kid }).sign(privateKey);
  return { jwk, sign };
}

test("verifyReceipt returns what a receipt signed by a published key states", async () => {
  const service = await signer("k1");
  const jwks = { keys: [service.jwk] } as JSONWebKeySet;
  deepStrictEqual(await verifyReceipt(await service.sign(statement), jwks), statement);

  const server = createServer((_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(jwks)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
    deepStrictEqual(await verifyReceipt(await service.sign(statement), url), statement, "from the JWKS URL");
  } finally {
    server.close();
  }
});

test("verifyReceipt refuses other algorithms, other keys and changed bytes", async () => {
  const service = await signer("k1");
  const jwks = { keys: [service.jwk] } as JSONWebKeySet;
  const good = await service.sign(statement);
  const [header, payload, signature] = good.split(".");
  const forgedPayload = Buffer.from(JSON.stringify({ ...statement, amountOut: "9999999999" })).toString("base64url");
  // An HMAC "signed" with the public key's bytes: the classic algorithm confusion.
  const hs256 = await new CompactSign(new TextEncoder().encode(JSON.stringify(statement)))
    .setProtectedHeader({ alg: "HS256", kid: "k1" }).sign(Buffer.from(service.jwk.x ?? "", "base64url"));
  const none = `${Buffer.from(JSON.stringify({ alg: "none", kid: "k1" })).toString("base64url")}.${payload}.`;
  const cases: [string, string][] = [
    ["HS256", hs256],
    ["alg none", none],
    ["a key the service does not publish", await (await signer("k1")).sign(statement)],
    ["a changed payload", `${header}.${forgedPayload}.${signature}`],
  ];
  for (const [name, receipt] of cases) {
    await rejects(verifyReceipt(receipt, jwks), InvalidReceipt, name);
  }

  // A set that also holds a P-256 key: a receipt that key signs is still not a receipt.
  const ec = await generateKeyPair("ES256", { extractable: true });
  const mixed = { keys: [service.jwk, { ...(await exportJWK(ec.publicKey)), kid: "p256" }] } as unknown as JSONWebKeySet;
  const es256 = await new CompactSign(new TextEncoder().encode(JSON.stringify(statement)))
    .setProtectedHeader({ alg: "ES256", kid: "p256" }).sign(ec.privateKey);
  await rejects(verifyReceipt(es256, mixed), InvalidReceipt, "ES256 from a key in the set");
  deepStrictEqual(await verifyReceipt(good, mixed), statement);
});
