// Create the clones of node $id, one per row of $groups ({key, group,
// cloneKey}; cloneKey, the clone's own key (IDProperty), may be null):
// the original's properties, minus SkipProperties, plus the provenance that
// undo needs, then the original's labels and the marker label (Labels,
// escaped on the client). The labels come last so that uniqueness
// constraints see the final properties (the copied key and provenance are
// gone by then). One statement for every clone of the node: a statement is
// a round trip, and ncut makes dozens of groups of sparse neighbourhoods.
MATCH (n) WHERE {{id "n"}} = $id
UNWIND $groups AS g
CREATE (m)
SET m = properties(n)
{{- range .SkipProperties}}
REMOVE m.{{name .}}
{{- end}}
SET m.fondue_split_key = g.key, m.fondue_split_run = $run, m.fondue_split_from = $from,
  m.fondue_split_from_id = $id, m.fondue_split_group = g.group, m.fondue_split_at = $at
{{- with .IDProperty}}
SET m.{{name .}} = g.cloneKey
{{- end}}
SET m{{labels .Labels}}
RETURN g.group AS group, {{id "m"}} AS id
