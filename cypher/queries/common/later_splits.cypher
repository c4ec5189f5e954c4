// The runs that split again a clone made by run $run (a node with the
// marker Label): they must be undone before run $run.
MATCH (m{{label .Label}})
WHERE m.fondue_split_run = $run AND m.fondue_split_runs IS NOT NULL
UNWIND m.fondue_split_runs AS later
RETURN DISTINCT later
ORDER BY later
