-- Alerts judged in an ingest transaction wait here to be sent
-- (docs/guardrails.md, "Alerts"). Claiming each breach's hourly key,
-- notifying owners and admins and queueing the signed deliveries in the
-- ingest transaction cost a 100-call batch that found about twenty new
-- per-run breaches a fifth of its time over HTTP (issue 11 asks for a few
-- percent). The batch now writes one row here, sent with its COMMIT, so it
-- exists exactly when the batch's calls do; the alert drain on every
-- instance takes rows with SKIP LOCKED and, in one transaction that
-- deletes them, claims the keys (guardrail_alerts: one alert per agent,
-- subject, kind and hour; budget_crossings: one per month and threshold,
-- whichever instance drains), notifies and queues the deliveries.
CREATE TABLE alerts_pending (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- the hour whose breach alert keys the breaches claim, and when the
    -- batch was judged
    hour       timestamptz NOT NULL,
    judged_at  timestamptz NOT NULL,
    -- [{agent, kind, subject, count, limit, observed, last_seen}, ...]
    breaches   jsonb NOT NULL DEFAULT '[]',
    -- budget thresholds the month's metered spend reached:
    -- [{month, thresholds, spend_nano, budget_nano, mode}, ...]
    crossings  jsonb NOT NULL DEFAULT '[]'
);
