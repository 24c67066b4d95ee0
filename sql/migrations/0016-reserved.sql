-- Placeholder holding number 0016 for a branch merged alongside this one (wt-alias needs 0018 and the runner wants a
-- contiguous list); drop this file at merge when the real 0016 lands.
SELECT 1;
