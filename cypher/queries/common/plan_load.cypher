// The split plan stored by a run, if any (to resume it).
MATCH (r{{label .Label}} {run_id: $run})
RETURN r.plan AS plan
