-- +goose Up
-- Event stream resumes: a partner's orders that ended at or after a time, oldest end first.
CREATE INDEX orders_partner_ended ON orders (partner, ended_at, order_id);

-- +goose Down
DROP INDEX orders_partner_ended;
