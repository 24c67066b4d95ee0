-- Smaller pages. A write appends every page it dirties to the WAL whole, and most of those pages (a leaf of each
-- index on facts, the counters, the full-text index's structure) change by a few dozen bytes: at 2 KiB a page the
-- same write appends half the bytes of 4 KiB pages and half the bytes to sync. A new store is made at this page size from
-- its first page; an existing one is rewritten at it once these statements have committed (a VACUUM outside WAL mode),
-- or keeps its page size when another connection holds the file open then.
-- page size: 2048
--
-- The full-text index's leaves are sized to fit a page without overflow (FTS5's default, 4,050 bytes, is sized for
-- 4 KiB pages), and its existing segments are merged into one written at that size.
INSERT INTO facts_fts (facts_fts, rank) VALUES ('pgsz', 2000);
INSERT INTO facts_fts (facts_fts) VALUES ('optimize');
