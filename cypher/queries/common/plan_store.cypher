// Store a run's split plan before the first split; an existing plan wins.
MERGE (r{{label .Label}} {run_id: $run})
ON CREATE SET r.plan = $plan, r.created_at = $at
RETURN r.plan AS plan
