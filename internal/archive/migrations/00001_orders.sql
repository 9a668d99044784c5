-- +goose Up
-- order_ids is kept forever (archive retention never touches it): every id handed out for an
-- Idempotency-Key or a clientReference, so neither is ever answered with a new order.
CREATE TABLE order_ids (
    order_id             text PRIMARY KEY,
    partner              text NOT NULL,
    idempotency_key_hash text,
    client_reference     text,
    reserved_at          timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX order_ids_client_reference ON order_ids (partner, client_reference)
    WHERE client_reference IS NOT NULL;

-- orders holds each terminal order as the SwapOrder object it was in etcd (so reads render
-- the same JSON as for a live order) plus the columns listing filters on.
CREATE TABLE orders (
    order_id         text PRIMARY KEY,
    partner          text NOT NULL,
    status           text NOT NULL,
    provider_id      text NOT NULL,
    client_reference text,
    created_at       timestamptz NOT NULL,
    ended_at         timestamptz NOT NULL,
    archived_at      timestamptz NOT NULL DEFAULT now(),
    object           jsonb NOT NULL,
    deliveries       jsonb NOT NULL DEFAULT '[]'
);
-- Partner listing: newest first, keyset on (created_at, order_id).
CREATE INDEX orders_partner_created ON orders (partner, created_at DESC, order_id DESC);
CREATE INDEX orders_partner_reference ON orders (partner, client_reference) WHERE client_reference IS NOT NULL;
-- Archive retention deletes by end time in batches.
CREATE INDEX orders_ended ON orders (ended_at);

-- +goose Down
DROP TABLE orders;
DROP TABLE order_ids;
