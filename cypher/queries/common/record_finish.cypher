// Mark a run's record finished: its loop (a split, a merge) completed.
MATCH (r{{label .Label}} {run_id: $run})
REMOVE r.unfinished
RETURN count(*) AS finished
