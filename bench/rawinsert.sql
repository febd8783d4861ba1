-- pgbench script: one single-row INSERT into the events table, shaped like an ingested event
-- (same columns, an eventId, a UUID primary key), autocommit, run with -M prepared. Variables: tenant (the bench
-- tenant id) and customer (a customer id of it), passed with -D.
INSERT INTO events (id, tenant_id, type, source, customer_id, partner_id, actor_kind, actor_id, depth, external_id, payload, occurred_at, received_at)
VALUES (gen_random_uuid()::text, :tenant, 'feature.used', 'ingest', :customer, NULL, 'machine_key', 'bench', 0,
        gen_random_uuid()::text, '{"feature":"export","seats":7,"plan":"pro"}', now(), now());
