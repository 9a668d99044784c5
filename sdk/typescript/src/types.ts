// Names for the generated types a partner reads most: each is the OpenAPI document's own
// schema, so a change of apiserver/openapi.json reaches them through `make generate`.
import type { components, operations, paths, webhooks } from "./generated/openapi.js";

export type { components, operations, paths, webhooks };

type Schemas = components["schemas"];
type Query<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;

export type Asset = Schemas["Asset"];
export type QuoteRequest = Schemas["QuoteRequest"];
export type QuoteResponse = Schemas["QuoteResponse"];
export type QuoteCandidate = Schemas["QuoteCandidate"];
export type QuoteOrderResponse = Schemas["QuoteOrderResponse"];
/** What a quote's `best` is chosen for: price (the default), speed or reliability. */
export type Preference = Schemas["Preference"];
export type OrderRequest = Schemas["OrderRequest"];
export type Order = Schemas["Order"];
export type OrderStatus = Order["status"];
export type Substatus = Schemas["Substatus"];
export type HistoryEntry = Schemas["HistoryEntry"];
export type DepositRequest = Schemas["DepositRequest"];
export type RatesRequest = Schemas["RatesRequest"];
export type RatesResponse = Schemas["RatesResponse"];
export type SwappableTargets = Schemas["SwappableTargets"];
export type Delivery = Schemas["Delivery"];
export type Usage = Schemas["Usage"];
export type Providers = Schemas["Providers"];
export type ProviderHealth = Schemas["ProviderHealth"];
export type Receipt = Schemas["Receipt"];
export type ReceiptPayload = Schemas["ReceiptPayload"];
export type JSONWebKeySet = Schemas["JSONWebKeySet"];
export type EventsToken = Schemas["EventsToken"];
/** The body of every error answer. */
export type ErrorBody = Schemas["Error"];
/** Every error code the API answers. */
export type ErrorCode = Schemas["ErrorCode"];

/** The `order.status_changed` event: a webhook's body, and each event of GET /v1/events. */
export type OrderStatusChanged =
  webhooks["order.status_changed"]["post"]["requestBody"]["content"]["application/json"];

export type ListAssetsQuery = Query<"listAssets">;
export type ListOrdersQuery = Query<"listOrders">;
export type ListDeliveriesQuery = Query<"listDeliveries">;
