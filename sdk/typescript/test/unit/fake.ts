// A fetch that answers from a script and records every request it got.
export type Answer = Response | Error | ((request: Request) => Response | Promise<Response>);

export function scripted(...answers: Answer[]) {
  const requests: Request[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    requests.push(request);
    const next = answers.shift();
    if (next === undefined) {
      throw new Error(`unexpected request ${request.method} ${request.url}`);
    }
    if (next instanceof Error) {
      throw next;
    }
    return typeof next === "function" ? next(request) : next;
  };
  return { fetch, requests, left: () => answers.length };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

export const order = {
  id: "ord_aaaaaaaaaaaaaaaaaaaaaaaaaa", status: "PENDING", providerId: "route_A",
  originAsset: "eip155:1/slip44:60", destinationAsset: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501",
  amount: "100000000000000000", depositAddress: "0x2222222222222222222222222222222222222222",
};

export const orderRequest = {
  originAsset: order.originAsset, destinationAsset: order.destinationAsset, amount: order.amount, providerId: "route_A" as const,
  sender: "0x1111111111111111111111111111111111111111", recipient: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
};
