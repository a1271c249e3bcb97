-- Forecast and anomaly alerts are claimed by a row each, so that whichever
-- instance's periodic evaluation sees the condition first sends the one
-- notice and webhook delivery, and a repeat finds the row (ON CONFLICT DO
-- NOTHING) and sends nothing.

-- The month's projection first went above the budget.
CREATE TABLE forecast_alerts (
    project_id  uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    month       date NOT NULL, -- first day of the UTC month
    sent_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, month)
);

-- A day's spend of a scope ('project', or 'agent:' and the agent's name)
-- was anomalous.
CREATE TABLE anomaly_alerts (
    project_id  uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    scope       text NOT NULL,
    day         date NOT NULL,
    sent_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, scope, day)
);
