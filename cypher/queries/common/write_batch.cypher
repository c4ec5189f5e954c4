// One batch of node properties, as lists of the same length (a list per
// column is cheaper for the server to read than a map per row): $ids, and
// $values[k], one value of Properties[k] per node; a null value removes
// the property. The node is found by its element id in a subquery of its
// own (so that the planner always seeks by element id, the fastest plan
// on every version), then the key, when IDProperty is set, and the
// labels, when NodeLabels are set, re-check that the element id still
// names the node that was read (element ids of deleted nodes are reused).
// Rows whose node is gone are written nowhere (write_missing names them).
// Idempotent: the same rows give the same graph.
UNWIND range(0, size($ids) - 1) AS i
CALL (i) {
  MATCH (m) WHERE {{id "m"}} = $ids[i]
  RETURN m
}
WITH i, m AS n
{{- if or .IDProperty .NodeLabels}}
WHERE {{with .IDProperty}}n.{{name .}} = $keys[i]{{end}}{{if and .IDProperty .NodeLabels}} AND {{end}}{{with .NodeLabels}}{{anyLabel "n" .}}{{end}}
{{- end}}
SET {{range $k, $p := .Properties}}{{if $k}}, {{end}}n.{{name $p}} = $values[{{$k}}][i]{{end}}
RETURN count(n) AS written, count($values[0][i]) AS set
