-- Accounts, projects, sessions, events and outcomes: the spine's schema.

CREATE TABLE users (
    id              uuid PRIMARY KEY,
    email           text NOT NULL,
    name            text NOT NULL DEFAULT '',
    password_hash   text NOT NULL DEFAULT '',
    email_verified  boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    last_active_at  timestamptz
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE consents (
    user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    document    text NOT NULL,
    version     text NOT NULL,
    accepted_at timestamptz NOT NULL DEFAULT now(),
    ip          text NOT NULL DEFAULT '',
    user_agent  text NOT NULL DEFAULT '',
    PRIMARY KEY (user_id, document, version)
);

-- A session is one sign-in: its access token and its refresh token are
-- stored only as SHA-256 hashes.
CREATE TABLE sessions (
    id                 uuid PRIMARY KEY,
    user_id            uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    access_hash        bytea NOT NULL UNIQUE,
    access_expires_at  timestamptz NOT NULL,
    refresh_hash       bytea NOT NULL UNIQUE,
    expires_at         timestamptz NOT NULL,
    remember_me        boolean NOT NULL DEFAULT false,
    revoked_at         timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_user_idx ON sessions (user_id);

CREATE TABLE projects (
    id          uuid PRIMARY KEY,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    owner_id    uuid NOT NULL REFERENCES users(id),
    is_active   boolean NOT NULL DEFAULT true,
    key_hash    bytea NOT NULL UNIQUE,
    key_prefix  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
    id          uuid PRIMARY KEY,
    project_id  uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    user_id     uuid REFERENCES users(id) ON DELETE CASCADE,
    email       text NOT NULL,
    role        text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
    is_owner    boolean NOT NULL DEFAULT false,
    invited_by  uuid REFERENCES users(id) ON DELETE SET NULL,
    invited_at  timestamptz NOT NULL DEFAULT now(),
    accepted_at timestamptz
);
CREATE UNIQUE INDEX memberships_project_email_key ON memberships (project_id, lower(email));
CREATE INDEX memberships_user_idx ON memberships (user_id);

-- One row per LLM call. The primary key is the idempotency key: a replayed
-- event_id of the same project is a duplicate, enforced here so it holds
-- under concurrent retries. Costs are integer nano-USD.
CREATE TABLE events (
    project_id          uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    event_id            text NOT NULL,
    ts                  timestamptz NOT NULL,
    agent_name          text NOT NULL,
    model               text NOT NULL,
    input_tokens        bigint NOT NULL,
    output_tokens       bigint NOT NULL,
    cached_tokens       bigint NOT NULL DEFAULT 0,
    cache_write_tokens  bigint NOT NULL DEFAULT 0,
    total_tokens        bigint NOT NULL,
    reasoning_tokens    bigint NOT NULL DEFAULT 0,
    cost_nano           bigint NOT NULL,
    cost_provided       boolean NOT NULL DEFAULT false,
    catalogue_cost_nano bigint,
    priced              boolean NOT NULL,
    price_version       text NOT NULL DEFAULT '',
    latency_ms          bigint,
    success             boolean NOT NULL DEFAULT true,
    error               text,
    streaming           boolean NOT NULL DEFAULT false,
    trace_id            text,
    span_id             text,
    parent_span_id      text,
    workflow            text,
    step_name           text,
    tool_name           text,
    user_id             text,
    session_id          text,
    billing             text NOT NULL DEFAULT 'api' CHECK (billing IN ('api', 'subscription')),
    source              text NOT NULL DEFAULT 'batch',
    metadata            jsonb,
    received_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, event_id)
);
CREATE INDEX events_project_ts_idx ON events (project_id, ts DESC);
CREATE INDEX events_project_agent_ts_idx ON events (project_id, agent_name, ts DESC);
CREATE INDEX events_project_trace_idx ON events (project_id, trace_id) WHERE trace_id IS NOT NULL;

CREATE TABLE outcomes (
    project_id  uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    trace_id    text NOT NULL,
    success     boolean NOT NULL,
    label       text,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, trace_id)
);
