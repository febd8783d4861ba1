-- pgbench script: the database's ceiling for batch ingest — one statement inserting 500 rows
-- shaped like ingested events (each with an eventId), autocommit. Variables: tenant, customer
-- (passed with -D). Rows per second = tps × 500.
INSERT INTO events (id, tenant_id, type, source, customer_id, partner_id, actor_kind, actor_id, depth, external_id, payload, occurred_at, received_at)
SELECT gen_random_uuid()::text, :tenant, 'feature.used', 'ingest', :customer, NULL, 'machine_key', 'bench', 0,
       gen_random_uuid()::text, '{"feature":"export","seats":7,"plan":"pro"}', now(), now()
FROM generate_series(1, 500);
