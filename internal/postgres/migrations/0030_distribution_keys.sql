-- Every per-project table is keyed by its project, so the schema can be
-- distributed by project_id on Citus (docs/scale.md): a distributed
-- table's primary key and unique constraints must include the
-- distribution column. Three tables had a surrogate id alone as their key;
-- their ids stay unique (uuid or identity), now under their project.
ALTER TABLE guardrails DROP CONSTRAINT guardrails_pkey, ADD PRIMARY KEY (project_id, id);

-- The alert drain walks the queue in id order across projects: the id
-- keeps an index of its own.
ALTER TABLE alerts_pending DROP CONSTRAINT alerts_pending_pkey, ADD PRIMARY KEY (project_id, id);
CREATE INDEX alerts_pending_id_idx ON alerts_pending (id);
