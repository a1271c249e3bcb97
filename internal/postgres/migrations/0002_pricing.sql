-- Price catalogues: every version ever put in force, and which one is in
-- force now.

-- Events stamp the version of the catalogue that priced them
-- (events.price_version); keeping every version's entries here means any
-- event's rates can be looked up later. Versions are content hashes, so
-- putting the same catalogue in force twice stores it once.
CREATE TABLE catalogue_versions (
    version     text PRIMARY KEY,
    source      text NOT NULL,
    models      integer NOT NULL,
    entries     jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- The catalogue in force (a single row), re-loaded at start so a restart
-- keeps the last good sync or import instead of falling back to the
-- built-in prices. updated_at maps each model to when its entry last
-- changed; changed_models is the report of the update that put it in force.
CREATE TABLE catalogue_current (
    singleton       boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version         text NOT NULL REFERENCES catalogue_versions(version),
    mode            text NOT NULL CHECK (mode IN ('embedded', 'network', 'import')),
    activated_at    timestamptz NOT NULL,
    updated_at      jsonb NOT NULL DEFAULT '{}',
    changed_models  jsonb NOT NULL DEFAULT '[]'
);
