import createClient, { type Client } from "openapi-fetch";
import { createRemoteJWKSet, customFetch, type CompactVerifyGetKey } from "jose";
import { errorFrom } from "./errors.js";
import { EventStream, type EventsOptions } from "./events.js";
import { rateLimitOf, type RateLimit } from "./ratelimit.js";
import { verifyReceipt } from "./receipts.js";
import { defaultRetryPolicy, retryDelay, sleep, type RetryInfo, type RetryPolicy } from "./retry.js";
import type {
  Asset, Delivery, DepositRequest, EventsToken, JSONWebKeySet, ListAssetsQuery, ListDeliveriesQuery, ListOrdersQuery,
  Order, OrderRequest, Providers, QuoteOrderResponse, QuoteRequest, QuoteResponse, RatesRequest, RatesResponse, Receipt,
  ReceiptPayload, SwappableTargets, Usage, operations, paths,
} from "./types.js";

/** How a SwapRouter client reaches the service. */
export interface SwapRouterOptions {
  /** The service's address (`make run`: $SWAPROUTER_URL). */
  baseUrl: string;
  /** The API key: X-Key-Id and its secret. Server side only; a browser never holds them. */
  keyId?: string;
  secret?: string;
  /**
   * Where events() takes its stream tokens. Default, with a key: POST /v1/events/token. In a
   * browser: your backend, which calls createEventsToken() with the key.
   */
  eventsToken?: () => Promise<EventsToken>;
  /** The contract's retry policy by default; change numbers, or `false` for no retries. */
  retry?: Partial<RetryPolicy> | false;
  /** Told before each retry and each reconnection of a stream (for logs and metrics). */
  onRetry?: (info: RetryInfo) => void;
  /** What sends the requests; globalThis.fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call, its retries and their waits. */
  signal?: AbortSignal;
}

/** Options of a call that creates an order. */
export interface CreateOptions extends CallOptions {
  /**
   * Sent as Idempotency-Key with every attempt of this call, so a retry returns the order the
   * first attempt made, never a second one. Default: a new random key per call. Pass your own
   * (e.g. your checkout id) to make a retry after a restart of your process safe as well.
   */
  idempotencyKey?: string;
}

/** The JSON body of operation Op's answer with status Status. */
type Answer<Op extends keyof operations, Status extends keyof operations[Op]["responses"]> =
  operations[Op]["responses"][Status] extends { content: { "application/json": infer Body } } ? Body : never;

/** A page of a cursor-paged listing. */
interface Page<Item> {
  items: Item[];
  nextCursor: string | null;
}

/**
 * A client of the /v1 API. Each operation of the OpenAPI document is a method that returns
 * the answer's body and throws a typed error (SwapRouterError's subclasses) for an error
 * answer. Every request is retried as the contract says: a 429 after Retry-After, a 5xx or a
 * lost answer with backoff and jitter, but only when repeating it cannot do a thing twice (a
 * read, a dry quote, or an order creation, which always carries an Idempotency-Key).
 */
export class SwapRouter {
  /**
   * The generated client (openapi-fetch over the document's types): every path and method,
   * with this client's key and retries, answering `{ data, error, response }` without
   * throwing. For what the methods below do not cover (HEAD, preflights).
   */
  readonly api: Client<paths>;
  readonly #baseUrl: string;
  readonly #fetch: (request: Request) => Promise<Response>;
  readonly #policy: RetryPolicy;
  readonly #onRetry: ((info: RetryInfo) => void) | undefined;
  readonly #eventsToken: (() => Promise<EventsToken>) | undefined;
  /** A request the client may repeat on a 5xx or a lost answer although it is a POST. */
  readonly #repeatable = (request: Request) => this.#send(request, true);
  #rateLimit: RateLimit | undefined;
  #receiptKeys: CompactVerifyGetKey | undefined;

  constructor(options: SwapRouterOptions) {
    this.#baseUrl = options.baseUrl;
    this.#fetch = options.fetch ?? ((request) => globalThis.fetch(request));
    this.#policy = options.retry === false ? { ...defaultRetryPolicy, maxRetries: 0 } : { ...defaultRetryPolicy, ...options.retry };
    this.#onRetry = options.onRetry;
    const headers: Record<string, string> = {};
    if (options.keyId !== undefined && options.secret !== undefined) {
      headers["X-Key-Id"] = options.keyId;
      headers["Authorization"] = `Bearer ${options.secret}`;
    }
    this.#eventsToken = options.eventsToken ?? (headers["X-Key-Id"] ? () => this.createEventsToken() : undefined);
    this.api = createClient<paths>({ baseUrl: options.baseUrl, headers, fetch: (request) => this.#send(request, false) });
  }

  /** The key's requests-per-minute bucket as the latest answer stated it (X-RateLimit-*). */
  get rateLimit(): RateLimit | undefined {
    return this.#rateLimit;
  }

  /** GET /v1/assets: the routable assets (filter by short chain key or text). */
  listAssets(query: ListAssetsQuery = {}, options: CallOptions = {}): Promise<{ assets: Asset[] }> {
    return this.#call(this.api.GET("/v1/assets", { params: { query }, ...options }));
  }

  /**
   * POST /v1/quote. `dry` true (the default): every provider's candidate and the best one,
   * nothing stored. `dry` false: the best candidate becomes an order (201, or 202 while its
   * deposit address is pending), created with an Idempotency-Key as createOrder does.
   */
  requestQuote(body: QuoteRequest & { dry: false }, options?: CreateOptions): Promise<QuoteOrderResponse>;
  requestQuote(body: QuoteRequest & { dry?: true }, options?: CallOptions): Promise<QuoteResponse>;
  requestQuote(body: QuoteRequest, options?: CreateOptions): Promise<QuoteResponse | QuoteOrderResponse>;
  requestQuote(body: QuoteRequest, { idempotencyKey, ...options }: CreateOptions = {}): Promise<QuoteResponse | QuoteOrderResponse> {
    if (body.dry === false) {
      const header = { "Idempotency-Key": idempotencyKey ?? crypto.randomUUID() };
      return this.#call(this.api.POST("/v1/quote", { body, params: { header }, ...options }));
    }
    return this.#call(this.api.POST("/v1/quote", { body, fetch: this.#repeatable, ...options }));
  }

  /**
   * POST /v1/order: the order with its deposit address (201), or, when the provider is slow,
   * the order without one yet (202, `depositAddress` null: poll getOrder). Every attempt
   * carries the same Idempotency-Key (options.idempotencyKey, else a new one for this call).
   */
  createOrder(body: OrderRequest, { idempotencyKey, ...options }: CreateOptions = {}): Promise<Order> {
    const header = { "Idempotency-Key": idempotencyKey ?? crypto.randomUUID() };
    return this.#call(this.api.POST("/v1/order", { body, params: { header }, ...options }));
  }

  /** GET /v1/order/{id}: the order as it stands (poll every 10-15 s, or read events()). */
  getOrder(id: string, options: CallOptions = {}): Promise<Order> {
    return this.#call(this.api.GET("/v1/order/{id}", { params: { path: { id } }, ...options }));
  }

  /** GET /v1/order/{id}/receipt: the order signed by the service; check it with verifyReceipt. */
  getOrderReceipt(id: string, options: CallOptions = {}): Promise<Receipt> {
    return this.#call(this.api.GET("/v1/order/{id}/receipt", { params: { path: { id } }, ...options }));
  }

  /** GET /v1/orders: one page of the partner's orders, newest first; orders() reads them all. */
  listOrders(query: ListOrdersQuery = {}, options: CallOptions = {}): Promise<Answer<"listOrders", 200>> {
    return this.#call(this.api.GET("/v1/orders", { params: { query }, ...options }));
  }

  /** Every order that matches query, newest first, page by page (query.limit orders a page). */
  orders(query: Omit<ListOrdersQuery, "cursor"> = {}, options: CallOptions = {}): AsyncGenerator<Order, void, undefined> {
    return paged(async (cursor) => {
      const page = await this.listOrders(cursor === undefined ? query : { ...query, cursor }, options);
      return { items: page.orders, nextCursor: page.nextCursor };
    });
  }

  /** POST /v1/order/{id}/deposit: passes the user's deposit transaction on (optional, speeds tracking). */
  submitDeposit(id: string, body: DepositRequest, options: CallOptions = {}): Promise<Order> {
    return this.#call(this.api.POST("/v1/order/{id}/deposit", { params: { path: { id } }, body, fetch: this.#repeatable, ...options }));
  }

  /** POST /v1/rates: one source against up to 50 targets; one bad target never fails the rest. */
  getRates(body: RatesRequest, options: CallOptions = {}): Promise<RatesResponse> {
    return this.#call(this.api.POST("/v1/rates", { body, fetch: this.#repeatable, ...options }));
  }

  /** GET /v1/swappable-targets: what `from` routes to now. */
  swappableTargets(from: string, options: CallOptions = {}): Promise<SwappableTargets> {
    return this.#call(this.api.GET("/v1/swappable-targets", { params: { query: { from } }, ...options }));
  }

  /** GET /v1/webhooks/deliveries: one page of the webhook delivery log; deliveries() reads it all. */
  listDeliveries(query: ListDeliveriesQuery = {}, options: CallOptions = {}): Promise<Answer<"listDeliveries", 200>> {
    return this.#call(this.api.GET("/v1/webhooks/deliveries", { params: { query }, ...options }));
  }

  /** Every webhook delivery that matches query, page by page. */
  deliveries(query: Omit<ListDeliveriesQuery, "cursor"> = {}, options: CallOptions = {}): AsyncGenerator<Delivery, void, undefined> {
    return paged(async (cursor) => {
      const page = await this.listDeliveries(cursor === undefined ? query : { ...query, cursor }, options);
      return { items: page.deliveries, nextCursor: page.nextCursor };
    });
  }

  /**
   * POST /v1/webhooks/deliveries/{eventId}/redeliver: sends an event again. Each call is one
   * more delivery, so a 5xx or a lost answer is not repeated (a 429 is, after Retry-After).
   */
  redeliver(eventId: string, options: CallOptions = {}): Promise<Delivery> {
    return this.#call(this.api.POST("/v1/webhooks/deliveries/{eventId}/redeliver", { params: { path: { eventId } }, ...options }));
  }

  /** GET /v1/usage: the key's requests per minute and the month's quotes. */
  getUsage(options: CallOptions = {}): Promise<Usage> {
    return this.#call(this.api.GET("/v1/usage", { ...options }));
  }

  /** GET /v1/providers: each provider's state as this installation measured it. */
  listProviders(options: CallOptions = {}): Promise<Providers> {
    return this.#call(this.api.GET("/v1/providers", { ...options }));
  }

  /** GET /v1/openapi.json: the document this SDK's types are generated from, as the service serves it. */
  openAPI(options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.#call(this.api.GET("/v1/openapi.json", { ...options }));
  }

  /** GET /.well-known/jwks.json: the public keys receipts are signed with (no key needed). */
  receiptKeys(options: CallOptions = {}): Promise<JSONWebKeySet> {
    return this.#call(this.api.GET("/.well-known/jwks.json", { ...options }));
  }

  /** POST /v1/events/token: a 5-minute token that opens this key's event stream (for a browser). */
  createEventsToken(options: CallOptions = {}): Promise<EventsToken> {
    return this.#call(this.api.POST("/v1/events/token", { fetch: this.#repeatable, ...options }));
  }

  /**
   * GET /v1/events as an async iterator: each order.status_changed event once, resumed after
   * the last one read when the connection drops. See EventStream.
   */
  events(options: EventsOptions = {}): EventStream {
    const token = this.#eventsToken;
    if (token === undefined) {
      throw new Error("events() needs a key (keyId and secret) or an eventsToken function");
    }
    return new EventStream({ baseUrl: this.#baseUrl, fetch: this.#fetch, token, policy: this.#policy, onRetry: this.#onRetry }, options);
  }

  /**
   * Verifies a receipt against this service's published keys (fetched once, and again for a
   * key id not seen yet) and returns what it states. See the function verifyReceipt.
   */
  verifyReceipt(receipt: string): Promise<ReceiptPayload> {
    this.#receiptKeys ??= createRemoteJWKSet(new URL("/.well-known/jwks.json", this.#baseUrl), {
      [customFetch]: (url, init) => this.#fetch(new Request(url, init)),
    });
    return verifyReceipt(receipt, this.#receiptKeys);
  }

  /** The body of a success answer; the typed error of any other. */
  async #call<Data>(pending: Promise<{ data?: Data; error?: unknown; response: Response }>): Promise<Data> {
    const { data, error, response } = await pending;
    if (!response.ok) {
      throw errorFrom(response.status, error, response.headers);
    }
    return data as Data;
  }

  /**
   * Sends request, again while the contract says to (see retryDelay), and notes the rate-limit
   * headers of each answer. GETs and requests carrying an Idempotency-Key are repeatable.
   */
  async #send(request: Request, repeatable: boolean): Promise<Response> {
    const safe = repeatable || request.method === "GET" || request.method === "HEAD" || request.headers.has("Idempotency-Key");
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.#fetch(request.clone());
      } catch (error) {
        request.signal.throwIfAborted();
        const delayMs = retryDelay(attempt, { error }, safe, this.#policy, Math.random(), Date.now());
        if (delayMs === undefined) {
          throw error;
        }
        await this.#wait({ attempt: attempt + 1, delayMs, method: request.method, url: request.url, error }, request.signal);
        continue;
      }
      this.#rateLimit = rateLimitOf(response.headers) ?? this.#rateLimit;
      const outcome = { status: response.status, retryAfter: response.headers.get("Retry-After") };
      const delayMs = retryDelay(attempt, outcome, safe, this.#policy, Math.random(), Date.now());
      if (delayMs === undefined) {
        return response;
      }
      await response.body?.cancel();
      await this.#wait({ attempt: attempt + 1, delayMs, method: request.method, url: request.url, status: response.status }, request.signal);
    }
  }

  async #wait(retry: RetryInfo, signal: AbortSignal): Promise<void> {
    this.#onRetry?.(retry);
    await sleep(retry.delayMs, signal);
  }
}

/** Reads a cursor-paged listing page by page: fetchPage(undefined) is the first. */
async function* paged<Item>(fetchPage: (cursor: string | undefined) => Promise<Page<Item>>): AsyncGenerator<Item, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
