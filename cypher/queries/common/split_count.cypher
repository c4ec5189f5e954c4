// How many of the given nodes (the planned nodes of run $run) carry the
// run's split mark: nodes it split that are not restored.
UNWIND $ids AS id
MATCH (n) WHERE {{id "n"}} = id AND $run IN coalesce(n.fondue_split_runs, [])
RETURN count(n) AS split
