-- A MIME type names a type and a subtype of at most 127 characters each (RFC 6838 4.2), so one
-- longer than 255 characters is not one; refused like a file name of that length, so no answer
-- that names it (the agent tools' documents summary) grows with it. NOT VALID: every row written
-- from now on is checked, and a database that already holds a longer one still migrates.
ALTER TABLE documents ADD CONSTRAINT documents_mime_type_length CHECK (char_length(mime_type) <= 255) NOT VALID;

-- migrate:down
ALTER TABLE documents DROP CONSTRAINT documents_mime_type_length;
