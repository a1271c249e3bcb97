-- Guardrail breaches judged in an ingest transaction wait here for their
-- alerts (docs/guardrails.md, "Breach alerts"). Claiming each breach's
-- hourly key, notifying owners and admins and queueing the signed delivery
-- in the ingest transaction cost a 100-call batch that found about twenty
-- new per-run breaches a fifth of its time over HTTP (issue 11 asks for a
-- few percent). The batch now writes one row here, in its own transaction
-- and so exactly when its calls are stored; the alert drain on every
-- instance takes rows with SKIP LOCKED and, in one transaction that deletes
-- them, claims the keys (guardrail_alerts: one alert per agent, subject,
-- kind and hour whichever instance drains), notifies and queues the
-- deliveries. Budget thresholds are still claimed in the ingest
-- transaction: they are crossed a few times a month.
CREATE TABLE breaches_pending (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- the hour whose alert keys the breaches claim, and when they were judged
    hour       timestamptz NOT NULL,
    judged_at  timestamptz NOT NULL,
    -- [{agent, kind, subject, count, limit, observed, last_seen}, ...]
    breaches   jsonb NOT NULL
);
