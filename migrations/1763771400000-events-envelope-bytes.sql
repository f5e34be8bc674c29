-- envelope_bytes: the size of the event's envelope as JSON text, which the events feed adds up to
-- end a page before it passes its byte budget without reading the envelopes it leaves out.
-- Stored, since a large envelope is kept compressed out of line: its stored size says little
-- about its size as text, and measuring that on every read would decompress it.
ALTER TABLE events ADD COLUMN envelope_bytes integer GENERATED ALWAYS AS (octet_length(envelope::text)) STORED;

-- migrate:down

ALTER TABLE events DROP COLUMN envelope_bytes;
