-- Claude Code and Gemini CLI records carry no streaming flag: their calls'
-- streaming is unknown (NULL), not false. Batch events still default to
-- false when the client sends none; events stored before keep their value.
ALTER TABLE events ALTER COLUMN streaming DROP NOT NULL;
