// Store a run's split plan before the first split; an existing plan wins.
// A plan that applies an approved plan records it: its fingerprint and
// when it was reviewed (null, hence not set, otherwise), and the review
// decisions later runs remember ($decisions, a JSON list, or null), and
// unfinished = true until the run's loop completes ($unfinished: true, or
// null; record_finish removes it). The stored plan
// comes back only when it is another one (null when it is $plan): a plan's
// text is tens of megabytes for a thousand hubs.
MERGE (r{{label .Label}} {run_id: $run})
ON CREATE SET r.plan = $plan, r.created_at = $at, r.approved_plan = $approved, r.reviewed_at = $reviewedAt,
  r.decisions = $decisions, r.unfinished = $unfinished
RETURN CASE WHEN r.plan = $plan THEN null ELSE r.plan END AS plan
