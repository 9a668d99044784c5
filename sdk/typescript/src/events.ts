import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { errorFrom } from "./errors.js";
import { retryDelay, sleep, type Outcome, type RetryInfo, type RetryPolicy } from "./retry.js";
import type { EventsToken, OrderStatusChanged } from "./types.js";

/** What `events()` reads. */
export interface EventsOptions {
  /** Resume right after this position (a StreamEvent's position you stored): no gap, no repeat. */
  after?: string;
  /** Only this order's events. A position is bound to the filter it was read with. */
  orderId?: string;
  /** Ends the stream, as close() does. */
  signal?: AbortSignal;
  /**
   * With no byte for this long the connection is taken for dead (a silent network drop) and
   * reopened. Default 45 s: three of the service's 15-second heartbeats.
   */
  idleTimeoutMs?: number;
}

/** One event of the stream. */
export interface StreamEvent {
  /** Where the stream stands after this event: store it with what you did, pass it as `after` to resume. */
  position: string;
  /** The webhook's payload, with the webhook's `evt_` id. */
  event: OrderStatusChanged;
}

/** What a stream needs from its client. */
export interface StreamTransport {
  baseUrl: string;
  fetch: (request: Request) => Promise<Response>;
  /** A token for GET /v1/events?token= (POST /v1/events/token, or a browser's own backend). */
  token: () => Promise<EventsToken>;
  policy: RetryPolicy;
  onRetry: ((info: RetryInfo) => void) | undefined;
}

/** A token this close to its expiresAt is renewed before it opens a connection. */
export const tokenRenewMarginMs = 60_000;

/** The default EventsOptions.idleTimeoutMs. */
const defaultIdleTimeoutMs = 45_000;

/** How many event ids a stream remembers to never yield one twice. */
const rememberedIds = 10_000;

/** Whether token may still open a connection at nowMs, with tokenRenewMarginMs to spare. */
export function tokenIsFresh(token: EventsToken, nowMs: number): boolean {
  const expires = Date.parse(token.expiresAt);
  return !Number.isNaN(expires) && expires - nowMs > tokenRenewMarginMs;
}

/** An open GET /v1/events connection. */
interface Connection {
  reader: ReadableStreamDefaultReader<string>;
  /** Restarts the idle timer: a byte arrived. */
  alive(): void;
  close(): void;
}

/**
 * GET /v1/events as an async iterator of StreamEvent. It opens the stream with a token
 * (renewed before it expires, and once more when the service refuses it), reopens a dropped
 * or silent connection after the last event it read (with backoff while that fails, honouring
 * Retry-After), and never yields an event twice. Iterate it once; `break`, close() or the
 * signal end it.
 */
export class EventStream implements AsyncIterable<StreamEvent> {
  readonly #transport: StreamTransport;
  /** The transport's policy without a limit: a stream reconnects until it is closed. */
  readonly #policy: RetryPolicy;
  readonly #orderId: string | undefined;
  readonly #idleTimeoutMs: number;
  readonly #closer = new AbortController();
  /** The last event yielded. */
  #position: string | undefined;
  /** The last event read: where a new connection resumes. */
  #readUpTo: string | undefined;
  #token: EventsToken | undefined;
  #connection: Connection | undefined;
  /** Whether the open connection has sent anything yet. */
  #heard = false;
  /** Connections in a row that failed or dropped before sending anything. */
  #failures = 0;
  /** The wait before the next connection, after a failure. */
  #retry: Omit<RetryInfo, "attempt" | "method" | "url"> | undefined;
  #iterated = false;
  readonly #pending: StreamEvent[] = [];
  readonly #seen = new Set<string>();
  readonly #parser: EventSourceParser;

  constructor(transport: StreamTransport, options: EventsOptions = {}) {
    this.#transport = transport;
    this.#policy = { ...transport.policy, maxRetries: Infinity };
    this.#orderId = options.orderId;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? defaultIdleTimeoutMs;
    this.#position = this.#readUpTo = options.after;
    this.#parser = createParser({ onEvent: (message) => this.#read(message) });
    const signal = options.signal;
    if (signal?.aborted) {
      this.#closer.abort(signal.reason);
    }
    signal?.addEventListener("abort", () => this.close(), { once: true, signal: this.#closer.signal });
  }

  /** The position of the last event yielded (or `after`): resume there later. */
  get position(): string | undefined {
    return this.#position;
  }

  /**
   * Opens the connection now (iterating opens it otherwise) and resolves once the service
   * accepted it: events from then on reach this stream.
   */
  async open(): Promise<void> {
    this.#connection ??= await this.#connect();
  }

  /** Ends the stream: iteration finishes, the connection closes. */
  close(): void {
    this.#closer.abort();
    this.#connection?.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    if (this.#iterated) {
      throw new Error("an EventStream is iterated once; open another with events({ after: stream.position })");
    }
    this.#iterated = true;
    return this.#events();
  }

  async *#events(): AsyncGenerator<StreamEvent, void, undefined> {
    try {
      for (;;) {
        const next = this.#pending.shift();
        if (next) {
          this.#position = next.position;
          yield next;
          continue;
        }
        if (this.#closer.signal.aborted) {
          return;
        }
        if (!this.#connection) {
          try {
            this.#connection = await this.#connect();
          } catch (error) {
            if (this.#closer.signal.aborted) {
              return;
            }
            throw error;
          }
        }
        let chunk: ReadableStreamReadResult<string>;
        try {
          chunk = await this.#connection.reader.read();
        } catch {
          chunk = { done: true, value: undefined };
        }
        if (chunk.done) {
          this.#dropped();
          continue;
        }
        this.#connection.alive();
        this.#heard = true;
        this.#failures = 0;
        this.#parser.feed(chunk.value);
      }
    } finally {
      this.close();
    }
  }

  #read(message: EventSourceMessage): void {
    if (message.event !== "order.status_changed") {
      return;
    }
    if (!message.id) {
      throw new Error("GET /v1/events sent an event without an id: the stream cannot resume after it");
    }
    this.#readUpTo = message.id;
    const event = JSON.parse(message.data) as OrderStatusChanged;
    if (this.#seen.has(event.id)) {
      return;
    }
    this.#remember(event.id);
    this.#pending.push({ position: message.id, event });
  }

  #remember(id: string): void {
    this.#seen.add(id);
    if (this.#seen.size > rememberedIds) {
      const oldest = this.#seen.values().next();
      if (!oldest.done) {
        this.#seen.delete(oldest.value);
      }
    }
  }

  /** The connection ended or broke: a half-read event is dropped and read again after #readUpTo. */
  #dropped(): void {
    this.#connection?.close();
    this.#connection = undefined;
    this.#parser.reset();
    if (!this.#heard) {
      const error = new Error("GET /v1/events closed before sending anything");
      this.#failed({ error }, () => error);
    }
  }

  /**
   * Counts a failed connection and sets the wait before the next one; throws error() when
   * the failure is not one to retry (a 400, a 401 for a new token, a 403).
   */
  #failed(outcome: Outcome, error: () => unknown): void {
    const delayMs = retryDelay(this.#failures, outcome, true, this.#policy, Math.random(), Date.now());
    if (delayMs === undefined) {
      throw error();
    }
    this.#failures++;
    this.#retry = "error" in outcome ? { delayMs, error: outcome.error } : { delayMs, status: outcome.status };
  }

  /** Opens a connection after #readUpTo, waiting and retrying while that fails. */
  async #connect(): Promise<Connection> {
    const signal = this.#closer.signal;
    let renew = false;
    for (;;) {
      if (this.#retry) {
        const { delayMs } = this.#retry;
        this.#transport.onRetry?.({ attempt: this.#failures, method: "GET", url: this.#url(), ...this.#retry });
        this.#retry = undefined;
        await sleep(delayMs, signal);
      }
      signal.throwIfAborted();
      const cached = this.#token !== undefined && !renew && tokenIsFresh(this.#token, Date.now());
      if (!cached || this.#token === undefined) {
        this.#token = await this.#transport.token();
      }
      renew = false;
      const connection = new AbortController();
      const stop = () => connection.abort(signal.reason);
      signal.addEventListener("abort", stop, { once: true });
      let response: Response;
      try {
        response = await this.#transport.fetch(new Request(this.#url(this.#token.token), {
          headers: { Accept: "text/event-stream" }, signal: connection.signal,
        }));
      } catch (error) {
        signal.removeEventListener("abort", stop);
        signal.throwIfAborted();
        this.#failed({ error }, () => error);
        continue;
      }
      if (response.ok && response.body) {
        this.#heard = false;
        return this.#opened(response.body, connection, () => signal.removeEventListener("abort", stop));
      }
      signal.removeEventListener("abort", stop);
      const body: unknown = await response.json().catch(() => undefined);
      if (response.status === 401 && cached) {
        renew = true; // refused although this clock thought it valid: take a new token at once
        continue;
      }
      this.#failed({ status: response.status, retryAfter: response.headers.get("Retry-After") },
        () => errorFrom(response.status, body, response.headers));
    }
  }

  #opened(body: NonNullable<Response["body"]>, connection: AbortController, release: () => void): Connection {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const alive = () => {
      clearTimeout(timer);
      timer = setTimeout(() => connection.abort(new Error("no heartbeat from GET /v1/events")), this.#idleTimeoutMs);
    };
    alive();
    return {
      reader,
      alive,
      close: () => {
        clearTimeout(timer);
        release();
        connection.abort();
        reader.cancel().catch(() => undefined);
      },
    };
  }

  /** The stream's URL; without token for what is reported (a token stands for the key). */
  #url(token?: string): string {
    const url = new URL("/v1/events", this.#transport.baseUrl);
    if (token !== undefined) {
      url.searchParams.set("token", token);
    }
    if (this.#orderId !== undefined) {
      url.searchParams.set("orderId", this.#orderId);
    }
    if (this.#readUpTo !== undefined) {
      url.searchParams.set("after", this.#readUpTo);
    }
    return url.toString();
  }
}
