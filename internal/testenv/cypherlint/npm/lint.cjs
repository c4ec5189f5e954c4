// Lints Cypher 5 queries with Neo4j's own grammar and semantic analysis
// (@neo4j-cypher/language-support). Installed and run by fondue-neo4j's
// internal/testenv/cypherlint: reads {"queries": {name: text}} as JSON on stdin and
// writes {"results": {name: [diagnostic]}} as JSON on stdout.
'use strict';

const ls = require('@neo4j-cypher/language-support');

const key = (d) => `${d.offsets.start}:${d.offsets.end}:${d.message}`;

// Messages of Neo4j's parser (the semantic analysis also reports parse
// errors; this package version reports none through ANTLR's listener).
const syntaxMessage = /^(Invalid input|Invalid constraint syntax|Mismatched input|Extraneous input|Missing |Unexpected end of input)/;

// The semantic analysis silently reports nothing for a query that contains
// characters outside the Basic Multilingual Plane (e.g. emoji). Each such
// character is two UTF-16 units; replacing it with two U+FFFD keeps every
// offset and keeps the query's validity (U+FFFD is fine in strings and
// quoted names and invalid elsewhere, like most emoji).
const astral = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

function lint(original) {
  const query = original.replace(astral, '\uFFFD\uFFFD');
  // Parameters are supplied at run time: declare every parameter the
  // query uses, so that only real problems are reported.
  const parsed = ls.parserWrapper.parse(query);
  const parameters = {};
  const syntax = new Set();
  for (const st of parsed.statementsParsing) {
    for (const p of st.collectedParameters || []) {
      parameters[p.name.replace(/^`|`$/g, '')] = null;
    }
    for (const e of st.syntaxErrors || []) syntax.add(key(e));
    if (st.cypherVersionError) syntax.add(key(st.cypherVersionError));
  }
  const schema = { parameters, defaultLanguage: 'CYPHER 5' };
  return ls.lintCypherQuery(query, schema).map((d) => {
    let kind;
    if (d.severity === 1) {
      kind = syntax.has(key(d)) || syntaxMessage.test(d.message) ? 'syntax' : 'semantic';
    } else if ((d.tags || []).includes(2) || /deprecated/i.test(d.message)) {
      kind = 'deprecation';
    } else {
      kind = 'warning';
    }
    return {
      severity: d.severity,
      kind,
      message: d.message,
      start: d.offsets.start,
      end: d.offsets.end,
    };
  });
}

// The semantic analysis swallows its own exceptions: make sure it works
// before trusting an empty result.
const canary = ls.lintCypherQuery('MATCH (n) RETURN undefinedVariable', { parameters: {} });
if (!canary.some((d) => d.severity === 1 && /undefinedVariable/.test(d.message))) {
  process.stderr.write('lint.cjs: the semantic analysis of @neo4j-cypher/language-support is not working (canary query gave ' +
    JSON.stringify(canary) + ')\n');
  process.exit(2);
}

const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const results = {};
for (const [name, query] of Object.entries(input.queries || {})) {
  try {
    results[name] = lint(query);
  } catch (e) {
    results[name] = [{ severity: 1, kind: 'internal', message: 'linter crashed: ' + ((e && e.stack) || e), start: 0, end: 0 }];
  }
}
process.stdout.write(JSON.stringify({ results }));
