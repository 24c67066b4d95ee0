-- Placeholder for version 8, which another branch uses (the health-check ledger): it keeps this branch's migration
-- list contiguous so 0009 applies; drop this file at merge, where the real 0008 takes its place.
SELECT 1;
