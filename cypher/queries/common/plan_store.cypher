// Store a run's split plan before the first split; an existing plan wins.
// A plan that applies an approved plan records it: its fingerprint and
// when it was reviewed (null, hence not set, otherwise).
MERGE (r{{label .Label}} {run_id: $run})
ON CREATE SET r.plan = $plan, r.created_at = $at, r.approved_plan = $approved, r.reviewed_at = $reviewedAt
RETURN r.plan AS plan
