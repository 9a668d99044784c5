import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { InvalidRequest, Unauthorized } from "../../src/errors.js";
import { EventStream, tokenIsFresh, type StreamEvent } from "../../src/events.js";
import { defaultRetryPolicy, type RetryInfo } from "../../src/retry.js";
import type { EventsToken } from "../../src/types.js";

type Handler = (res: ServerResponse, url: URL, n: number) => void;

/** A GET /v1/events server answering its nth connection with handlers[n] (later ones with the last). */
async function server(...handlers: Handler[]) {
  const urls: URL[] = [];
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    urls.push(url);
    handlers[Math.min(urls.length, handlers.length) - 1]?.(res, url, urls.length - 1);
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { base, urls, close: () => { srv.closeAllConnections(); srv.close(); } };
}

const open = (res: ServerResponse) => res.writeHead(200, { "Content-Type": "text/event-stream" }).flushHeaders();
const event = (seq: number, position: string, status = "PROCESSING") =>
  `id: ${position}\nevent: order.status_changed\ndata: ${JSON.stringify({ id: `evt_${seq}`, orderId: "ord_a", status, sequence: seq })}\n\n`;
const failure = (status: number, error: string, headers: Record<string, string> = {}): Handler => (res) =>
  res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(JSON.stringify({ error }));

function stream(base: string, tokens: EventsToken[], options: ConstructorParameters<typeof EventStream>[1] = {}) {
  const retries: RetryInfo[] = [];
  let given = 0;
  const s = new EventStream({
    baseUrl: base, fetch: (r) => fetch(r), policy: { ...defaultRetryPolicy, baseDelayMs: 1 }, onRetry: (r) => retries.push(r),
    token: async () => {
      const t = tokens[given++];
      if (!t) throw new Error("no more tokens");
      return t;
    },
  }, options);
  return { s, retries, tokensTaken: () => given };
}

const valid = (token: string): EventsToken => ({ token, expiresAt: new Date(Date.now() + 5 * 60_000).toISOString() });

async function take(s: EventStream, n: number): Promise<StreamEvent[]> {
  const got: StreamEvent[] = [];
  for await (const e of s) {
    got.push(e);
    if (got.length === n) break;
  }
  return got;
}

test("a dropped connection resumes after the last event read; a replayed event is not yielded twice", async () => {
  const srv = await server(
    (res) => {
      open(res);
      res.write(event(1, "p1", "PENDING") + event(2, "p2"));
      // Half an event, then the connection breaks.
      res.write("id: p3\nevent: order.status_changed\ndata: {\"id\":\"evt_3\"", () => res.destroy());
    },
    (res) => {
      open(res);
      res.write(event(2, "p2b") + event(3, "p3", "SUCCESS"));
    },
  );
  try {
    const { s } = stream(srv.base, [valid("t1")], { orderId: "ord_a" });
    const got = await take(s, 3);
    deepStrictEqual(got.map((e) => [e.position, e.event.id, e.event.status]),
      [["p1", "evt_1", "PENDING"], ["p2", "evt_2", "PROCESSING"], ["p3", "evt_3", "SUCCESS"]]);
    strictEqual(s.position, "p3");
    deepStrictEqual(srv.urls.map((u) => [u.searchParams.get("token"), u.searchParams.get("orderId"), u.searchParams.get("after")]),
      [["t1", "ord_a", null], ["t1", "ord_a", "p2"]]);
  } finally {
    srv.close();
  }
});

test("a connection that goes silent is taken for dead and reopened", async () => {
  const srv = await server(
    (res) => { open(res); res.write(event(1, "p1")); },
    (res) => { open(res); res.write(": heartbeat\n\n" + event(2, "p2")); },
  );
  try {
    const { s } = stream(srv.base, [valid("t1")], { idleTimeoutMs: 200 });
    deepStrictEqual((await take(s, 2)).map((e) => e.event.id), ["evt_1", "evt_2"]);
    strictEqual(srv.urls[1]?.searchParams.get("after"), "p1");
  } finally {
    srv.close();
  }
});

test("a token near its expiry is renewed before a connection; a refused one is renewed once, then thrown", async () => {
  const srv = await server(
    (res) => { open(res); res.end(event(1, "p1")); },
    (res) => { open(res); res.end(event(2, "p2")); },
    failure(401, "unauthorized"),
    (res) => { open(res); res.end(event(3, "p3")); },
    failure(401, "unauthorized"),
    failure(401, "unauthorized"),
  );
  try {
    const soon: EventsToken = { token: "t1", expiresAt: new Date(Date.now() + 30_000).toISOString() };
    const { s } = stream(srv.base, [soon, valid("t2"), valid("t3"), valid("t4")]);
    const got: string[] = [];
    await rejects(async () => {
      for await (const e of s) got.push(e.event.id);
    }, Unauthorized);
    deepStrictEqual(got, ["evt_1", "evt_2", "evt_3"]);
    deepStrictEqual(srv.urls.map((u) => [u.searchParams.get("token"), u.searchParams.get("after")]), [
      ["t1", null], // a just-taken token is used even when close to its expiry
      ["t2", "p1"], // t1 was within a minute of expiring: renewed before reconnecting
      ["t2", "p2"], // refused: renewed at once...
      ["t3", "p2"],
      ["t3", "p3"], // refused again...
      ["t4", "p3"], // ...and a new token refused too: thrown
    ]);
  } finally {
    srv.close();
  }
});

test("a 429 is waited out for Retry-After; a position the service refuses is thrown", async () => {
  const srv = await server(
    failure(429, "rate limit exceeded", { "Retry-After": "1" }),
    (res) => { open(res); res.write(event(1, "p1")); },
    failure(400, "invalid request"),
  );
  try {
    const limited = stream(srv.base, [valid("t1")]);
    deepStrictEqual((await take(limited.s, 1)).map((e) => e.event.id), ["evt_1"]);
    deepStrictEqual(limited.retries.map((r) => [r.attempt, r.delayMs, r.status]), [[1, 1000, 429]]);
    ok(!limited.retries[0]?.url.includes("t1"), "the token is not reported");

    const refused = stream(srv.base, [valid("t1")], { after: "not-a-position" });
    await rejects(refused.s.open(), InvalidRequest);
  } finally {
    srv.close();
  }
});

test("close() and the signal end the iteration", async () => {
  const srv = await server((res) => open(res), (res) => open(res));
  try {
    const abort = new AbortController();
    const { s } = stream(srv.base, [valid("t1"), valid("t2")], { signal: abort.signal });
    await s.open();
    setImmediate(() => abort.abort());
    deepStrictEqual(await take(s, 1), []);

    const second = stream(srv.base, [valid("t2")]).s;
    setImmediate(() => second.close());
    deepStrictEqual(await take(second, 1), []);
  } finally {
    srv.close();
  }
});

test("tokenIsFresh keeps a minute to spare", () => {
  const now = Date.parse("2026-11-27T12:00:00Z");
  strictEqual(tokenIsFresh({ token: "t", expiresAt: "2026-11-27T12:05:00Z" }, now), true);
  strictEqual(tokenIsFresh({ token: "t", expiresAt: "2026-11-27T12:01:00Z" }, now), false);
  strictEqual(tokenIsFresh({ token: "t", expiresAt: "2026-11-27T11:59:00Z" }, now), false);
  strictEqual(tokenIsFresh({ token: "t", expiresAt: "soon" }, now), false);
});
