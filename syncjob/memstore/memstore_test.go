package memstore_test

import (
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/storetest"
)

func TestConformance(t *testing.T) { storetest.Run(t, storetest.Memory) }
