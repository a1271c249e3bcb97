-- API keys are cached per instance for at most a minute (docs/guardrails.md,
-- "Budget state under pollers"); this trigger makes every change that can
-- revoke a key — a rotation, a project deleted, or deactivated — notify
-- every instance on commit, whichever statement (or operator) made it, so
-- each empties its cache at once instead of waiting for the entries to age.
CREATE FUNCTION notify_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('llmcost_api_keys', '');
    RETURN NULL;
END $$;

CREATE TRIGGER projects_api_key_change
    AFTER UPDATE OF key_hash, is_active OR DELETE ON projects
    FOR EACH STATEMENT EXECUTE FUNCTION notify_api_key_change();
