// The whole system the Go test test/tssdk starts (control plane, simulator, controllers,
// frontend) and the partners it declared, from its environment.
import { SwapRouter, type SwapRouterOptions } from "../../src/index.js";

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: these tests run against the whole system from go test ./test/tssdk/`);
  }
  return value;
}

export const baseUrl = required("SWAPROUTER_URL");
export const simulatorUrl = required("SIMULATOR_URL");

/**
 * A client of a partner the Go test declared: SDK_HOOKS (its webhooks go to the journey's
 * receiver), SDK, SDK_LIMITED (12 requests a minute), SDK_PAGES (its orders are the listing's).
 */
export function partner(name: "SDK_HOOKS" | "SDK" | "SDK_LIMITED" | "SDK_PAGES", options: Partial<SwapRouterOptions> = {}): SwapRouter {
  return new SwapRouter({ baseUrl, keyId: required(`${name}_KEY_ID`), secret: required(`${name}_API_SECRET`), ...options });
}

/** Partner SDK_HOOKS's webhooks: the loopback port they are sent to, and the secret they are signed with. */
export const webhook = { port: Number(required("SDK_HOOKS_WEBHOOK_PORT")), secret: required("SDK_HOOKS_WEBHOOK_SECRET") };

/** 0.1 ETH to SOL, an order both simulated providers take. */
export const swap = {
  originAsset: "eip155:1/slip44:60",
  destinationAsset: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501",
  amount: "100000000000000000",
  sender: "0x1111111111111111111111111111111111111111",
  recipient: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
};

/** The user pays the deposit address on the simulated chain; returns the transaction hash. */
export async function deposit(depositAddress: string, amount: string): Promise<string> {
  const response = await fetch(`${simulatorUrl}/chain/deposits`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ depositAddress, amount }),
  });
  if (!response.ok) {
    throw new Error(`simulated deposit: ${response.status} ${await response.text()}`);
  }
  return ((await response.json()) as { txHash: string }).txHash;
}

/** Polls check every 100 ms until it returns a value, for at most timeoutMs (a bound on a stuck system, not a speed budget). */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`not within ${timeoutMs / 1000} s: ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A fetch whose GET /v1/events connections the test can break (the socket closes, as when a
 * network drops) and hold back before they reach the service.
 */
export function breakableStreams() {
  const connections: URL[] = [];
  let current: AbortController | undefined;
  let gate: Promise<void> | undefined;
  const fetchFn = async (request: Request): Promise<Response> => {
    if (new URL(request.url).pathname !== "/v1/events") {
      return fetch(request);
    }
    connections.push(new URL(request.url));
    await gate;
    const connection = new AbortController();
    request.signal.addEventListener("abort", () => connection.abort(request.signal.reason), { once: true });
    current = connection;
    return fetch(new Request(request, { signal: connection.signal }));
  };
  return {
    fetch: fetchFn,
    connections,
    /** Breaks the open connection. */
    drop: () => current?.abort(new Error("the network dropped the connection")),
    /** Holds every new connection until the returned function is called. */
    hold: (): (() => void) => {
      let release = () => {};
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}
