// Record on the original that run $run split it (undo removes the entry).
MATCH (n) WHERE {{id "n"}} = $id
SET n.fondue_split_runs = coalesce(n.fondue_split_runs, []) + $run
RETURN count(n) AS marked
