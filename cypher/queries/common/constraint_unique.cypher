// A uniqueness constraint, Neo4j 5 syntax.
CREATE CONSTRAINT {{name .ConstraintName}} IF NOT EXISTS FOR (n{{label .Label}}) REQUIRE n.{{name .Property}} IS UNIQUE
