-- Guardrails, tool tags, budgets, webhooks, alerts and notifications
-- (issue 11, docs/guardrails.md).

-- policy_version changes on every guardrail, tool-tag, budget or webhook
-- write of a project: the ingest hook compares it with its cached copy
-- (one primary-key read per batch) so every instance judges with the
-- policy in force.
ALTER TABLE projects ADD COLUMN policy_version bigint NOT NULL DEFAULT 0;

CREATE TABLE guardrails (
    id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    project_id              uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    agent_name              text NOT NULL,
    allowed_tools           text[],          -- NULL permits any
    read_only               boolean NOT NULL DEFAULT false,
    allowed_models          text[],          -- NULL permits any
    max_tool_calls_per_run  bigint,
    max_cost_per_run_nano   bigint,
    enabled                 boolean NOT NULL DEFAULT true,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, agent_name)
);

CREATE TABLE tool_tags (
    project_id  uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    tool_name   text NOT NULL,
    access      text NOT NULL CHECK (access IN ('read', 'write')),
    PRIMARY KEY (project_id, tool_name)
);

CREATE TABLE budgets (
    project_id  uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    enabled     boolean NOT NULL,
    mode        text NOT NULL CHECK (mode IN ('warn', 'hard_cap')),
    budget_nano bigint NOT NULL CHECK (budget_nano > 0),
    thresholds  int[] NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Month-to-date metered spend (billing other than subscription), kept by
-- the ingest statement: budget state reads one row, never events.
CREATE TABLE spend_month (
    project_id   uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    month        date NOT NULL, -- first day of the UTC month
    metered_nano bigint NOT NULL,
    PRIMARY KEY (project_id, month)
);

-- One row per threshold crossed in a month: inserted in the ingest
-- transaction that crossed it, so two instances cannot both alert.
CREATE TABLE budget_crossings (
    project_id  uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    month       date NOT NULL,
    threshold   int NOT NULL,
    crossed_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, month, threshold)
);

CREATE TABLE webhooks (
    project_id  uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    url         text NOT NULL,
    secret      text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- At most one guardrail alert per (agent, subject, kind) per hour, held
-- here so it holds across instances.
CREATE TABLE guardrail_alerts (
    project_id  uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    agent_name  text NOT NULL,
    subject     text NOT NULL,
    kind        text NOT NULL,
    hour        timestamptz NOT NULL,
    PRIMARY KEY (project_id, agent_name, subject, kind, hour)
);

CREATE TABLE notifications (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    project_id  uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    type        text NOT NULL,
    title       text NOT NULL,
    body        text NOT NULL,
    data        jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    read_at     timestamptz
);
CREATE INDEX notifications_user_idx ON notifications (user_id, created_at DESC);

-- When an agent last used a tool or a model, kept by the ingest
-- statement, for compliance's last_seen without a scan of events.
CREATE TABLE agent_last_seen (
    project_id  uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    agent_name  text NOT NULL,
    dim         text NOT NULL, -- tool or model
    key         text NOT NULL,
    last_seen   timestamptz NOT NULL,
    PRIMARY KEY (project_id, agent_name, dim, key)
);
