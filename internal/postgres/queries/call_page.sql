-- One page of a project's calls in [from, to), oldest first by
-- (timestamp, event_id) (postgres.CallsPage): keyset pagination.
--
-- Parameters:
--   @project_id  uuid         the project
--   @from        timestamptz  the calls' window [from, to)
--   @to          timestamptz
--   @limit       bigint       the page's size
--
-- The columns marker is the events columns in eventCols order
-- (selectList); as written, two of them. The after marker, empty as
-- written, starts the page strictly after a key (callPageAfterSQL), which
-- it names @after_ts (timestamptz) and @after_id (text).
--
-- The order is that of events_project_ts_idx (project_id, ts), read
-- backwards; calls sharing a timestamp are sorted by event_id within it
-- (an incremental sort of a handful of rows), which makes the order total.
SELECT /* TEMPLATE_BEGIN: columns */ event_id, ts /* TEMPLATE_END */
FROM events
WHERE project_id = @project_id AND /* TEMPLATE: after */ ts >= @from AND ts < @to
ORDER BY ts, event_id
LIMIT @limit
