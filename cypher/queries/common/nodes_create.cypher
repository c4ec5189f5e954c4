// Create one node per row of $rows: a copy of node $from's properties
// (none when $from is null), minus SkipProperties, then the row's (a null
// removes one), then Labels (escaped on the client; last, so that
// uniqueness constraints see the final properties). No row when $from is
// given and gone. One statement for every node: a statement is a round
// trip, and ncut makes dozens of groups of sparse neighbourhoods.
OPTIONAL MATCH (n) WHERE {{id "n"}} = $from
WITH n WHERE $from IS NULL OR n IS NOT NULL
UNWIND range(0, size($rows) - 1) AS i
CREATE (m)
SET m = coalesce(properties(n), {})
{{- range .SkipProperties}}
REMOVE m.{{name .}}
{{- end}}
SET m += $rows[i]
{{- with .Labels}}
SET m{{labels .}}
{{- end}}
RETURN i, {{id "m"}} AS id
ORDER BY i
