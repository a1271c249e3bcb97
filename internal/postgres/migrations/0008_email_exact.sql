-- E-mail addresses are stored and compared in one normalised form
-- (authn.NormalizeEmail: surrounding spaces trimmed, ASCII A-Z lowercased,
-- nothing else folded) and matched exactly. lower() folded more: under
-- most collations it maps the Kelvin sign U+212A to "k", so one person's
-- address could sign in as, reset, or accept the invitations of another's.
-- Addresses stored before are brought to that form (social sign-in kept
-- the provider's case); the old unique index on lower(email) rules out two
-- rows that differ only in ASCII case.
UPDATE users SET email = translate(email, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
WHERE email <> translate(email, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
UPDATE memberships SET email = translate(email, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
WHERE email <> translate(email, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
DROP INDEX users_email_key;
CREATE UNIQUE INDEX users_email_key ON users (email);
DROP INDEX memberships_project_email_key;
CREATE UNIQUE INDEX memberships_project_email_key ON memberships (project_id, email);
DROP INDEX memberships_pending_email_idx;
CREATE INDEX memberships_pending_email_idx ON memberships (email) WHERE accepted_at IS NULL;
