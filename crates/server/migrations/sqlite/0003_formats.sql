-- Format versions (see src/event_log/mod.rs): every stored event row and
-- every game's specification says which format of the event log it is
-- written in. Rows written before this migration are format 1, the first;
-- a build refuses rows of a format newer than it knows instead of misreading
-- them.
ALTER TABLE game_events ADD COLUMN format INTEGER NOT NULL DEFAULT 1 CHECK (format >= 1);
ALTER TABLE games ADD COLUMN spec_format INTEGER NOT NULL DEFAULT 1 CHECK (spec_format >= 1);
