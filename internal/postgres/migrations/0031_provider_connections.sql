-- Reconciliation with the provider's bill. A project connects a provider
-- organisation with its admin key (sealed with the deployment secret; the
-- plain key is never stored), optionally narrowed to the workspaces,
-- projects or API keys that are its share of the bill. The sync copies the
-- provider's daily usage and cost reports into the two tables below; the
-- reconciliation report compares them with the project's own calls.
CREATE TABLE provider_connections (
    project_id        uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    provider          text NOT NULL CHECK (provider IN ('anthropic', 'openai')),
    key_sealed        bytea NOT NULL,
    key_hint          text NOT NULL,
    workspace_ids     text[] NOT NULL DEFAULT '{}',
    project_ids       text[] NOT NULL DEFAULT '{}',
    api_key_ids       text[] NOT NULL DEFAULT '{}',
    backfill_days     integer NOT NULL CHECK (backfill_days BETWEEN 1 AND 90),
    -- monthly drift that alerts, in hundredths of a percent (200 = 2 %)
    tolerance_bp      integer NOT NULL CHECK (tolerance_bp BETWEEN 0 AND 10000),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    -- sync state: pending until the first sync, then ok, retrying (the
    -- provider was away; next_attempt_at says when) or failed (the key
    -- was refused; nothing is tried until the key changes or a sync is
    -- asked for)
    sync_status       text NOT NULL DEFAULT 'pending'
                      CHECK (sync_status IN ('pending', 'ok', 'retrying', 'failed')),
    last_sync_at      timestamptz,
    last_sync_error   text,
    failures          integer NOT NULL DEFAULT 0,
    next_attempt_at   timestamptz NOT NULL DEFAULT 'epoch',
    -- a sync in progress holds the connection until this lease ends, so
    -- two instances never sync one connection at once
    lease_until       timestamptz NOT NULL DEFAULT 'epoch',
    PRIMARY KEY (project_id, provider)
);
CREATE INDEX provider_connections_due_idx ON provider_connections (next_attempt_at);

-- The provider's usage report, one row per UTC day, model and service
-- tier, tokens by class (input is the uncached prompt).
CREATE TABLE provider_usage (
    project_id      uuid NOT NULL,
    provider        text NOT NULL,
    day             date NOT NULL,
    model           text NOT NULL,
    service_tier    text NOT NULL,
    input_tokens    bigint NOT NULL,
    cache_read      bigint NOT NULL,
    cache_write_5m  bigint NOT NULL,
    cache_write_1h  bigint NOT NULL,
    output_tokens   bigint NOT NULL,
    requests        bigint NOT NULL,
    PRIMARY KEY (project_id, provider, day, model, service_tier),
    FOREIGN KEY (project_id, provider) REFERENCES provider_connections ON DELETE CASCADE
);

-- The provider's cost report, one row per UTC day, model, token class and
-- tier, in nano-USD. model is '' for charges not tied to a model (tools,
-- storage); token_class is '' when the provider does not say.
CREATE TABLE provider_costs (
    project_id    uuid NOT NULL,
    provider      text NOT NULL,
    day           date NOT NULL,
    model         text NOT NULL,
    token_class   text NOT NULL,
    service_tier  text NOT NULL,
    cost_nano     bigint NOT NULL,
    PRIMARY KEY (project_id, provider, day, model, token_class, service_tier),
    FOREIGN KEY (project_id, provider) REFERENCES provider_connections ON DELETE CASCADE
);

-- When each day was last fetched: a day fetched before the provider could
-- have finished counting it is shown as not final, and fetched again.
CREATE TABLE provider_days (
    project_id   uuid NOT NULL,
    provider     text NOT NULL,
    day          date NOT NULL,
    fetched_at   timestamptz NOT NULL,
    costs        boolean NOT NULL, -- false: the cost report could not be narrowed to the scope
    PRIMARY KEY (project_id, provider, day),
    FOREIGN KEY (project_id, provider) REFERENCES provider_connections ON DELETE CASCADE
);

-- A month whose drift passed a connection's tolerance is alerted once (a
-- signed reconciliation.drift delivery, a notice to owners and admins),
-- whichever instance's sync saw it first.
CREATE TABLE reconciliation_alerts (
    project_id  uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    provider    text NOT NULL,
    month       date NOT NULL,
    sent_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, provider, month)
);
