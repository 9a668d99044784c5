-- +goose Up
-- pending: reserved by a create that has not been seen to place its order yet (Reserve sets
-- it, archiving the order clears it). A pending reservation whose order never appeared in etcd
-- was left by a create that crashed or was refused after reserving, and may be taken over.
-- Every id recorded before is kept as placed: no reference or key is ever freed by this.
ALTER TABLE order_ids ADD COLUMN pending boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE order_ids DROP COLUMN pending;
