// A uniqueness constraint, Neo4j 3.x syntax (a no-op if it exists).
CREATE CONSTRAINT ON (n{{label .Label}}) ASSERT n.{{name .Property}} IS UNIQUE
