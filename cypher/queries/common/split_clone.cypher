// Create one clone of node $id: the original's labels (Labels, escaped on
// the client) and properties, minus SkipProperties, plus the marker label
// (among Labels) and the provenance that undo needs.
MATCH (n) WHERE {{id "n"}} = $id
CREATE (m{{labels .Labels}})
SET m = properties(n)
{{- range .SkipProperties}}
REMOVE m.{{name .}}
{{- end}}
SET m.fondue_split_key = $key, m.fondue_split_run = $run, m.fondue_split_from = $from,
  m.fondue_split_from_id = $id, m.fondue_split_group = $group, m.fondue_split_at = $at
RETURN {{id "m"}} AS id
