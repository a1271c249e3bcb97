-- A project is deleted in two steps (docs/accounts.md, "Delete"). The
-- request marks it: deleted_at is set, its key hash is replaced by one no
-- key hashes to, its memberships go, and a job is queued in the same
-- transaction. The job then deletes its rows in short chunks, table by
-- table, and the project's row last. Deleting the row at once cascaded
-- through every table in one transaction: minutes at ten million calls,
-- holding the rows' locks and bloating the tables. The column is added
-- without a default, so this is a change of the catalogue only.
ALTER TABLE projects ADD COLUMN deleted_at timestamptz;

-- Marking a project deleted revokes its key: every instance empties its
-- key cache on the notification (0016), whatever statement set the mark.
DROP TRIGGER projects_api_key_change ON projects;
CREATE TRIGGER projects_api_key_change
    AFTER UPDATE OF key_hash, is_active, deleted_at OR DELETE ON projects
    FOR EACH STATEMENT EXECUTE FUNCTION notify_api_key_change();
