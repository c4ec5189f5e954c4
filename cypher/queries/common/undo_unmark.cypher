// Remove run $run from the original's list of splits (the property goes
// when the list is empty, as it was before the first split).
MATCH (n) WHERE {{id "n"}} = $id
WITH n, [x IN coalesce(n.fondue_split_runs, []) WHERE x <> $run] AS rest
SET n.fondue_split_runs = CASE WHEN size(rest) = 0 THEN null ELSE rest END
RETURN count(n) AS unmarked
