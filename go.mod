module github.com/fondue-neo4j/fondue-neo4j

go 1.26.8

require gonum.org/v1/gonum v0.17.0 // indirect
