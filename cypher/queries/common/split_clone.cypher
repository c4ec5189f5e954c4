// Create one clone of node $id: the original's properties, minus
// SkipProperties, plus the provenance that undo needs, then the original's
// labels and the marker label (Labels, escaped on the client). The labels
// come last so that uniqueness constraints see the final properties (the
// copied key and provenance are gone by then).
MATCH (n) WHERE {{id "n"}} = $id
CREATE (m)
SET m = properties(n)
{{- range .SkipProperties}}
REMOVE m.{{name .}}
{{- end}}
SET m.fondue_split_key = $key, m.fondue_split_run = $run, m.fondue_split_from = $from,
  m.fondue_split_from_id = $id, m.fondue_split_group = $group, m.fondue_split_at = $at
SET m{{labels .Labels}}
RETURN {{id "m"}} AS id
