package setup

import (
	"path/filepath"
	"strings"
	"testing"
)

// testData is a folder that exists: the bench's test data.
const testData = "../testdata"

func TestFindDataDir(t *testing.T) {
	if d, err := FindDataDir(testData); err != nil || d != testData {
		t.Fatalf("explicit: %q %v", d, err)
	}
	if _, err := FindDataDir(filepath.Join(t.TempDir(), "nope")); err == nil || !strings.Contains(err.Error(), "--data-dir") {
		t.Fatalf("missing explicit dir: %v", err)
	}
	t.Setenv(DataDirEnv, testData)
	if d, err := FindDataDir(""); err != nil || d != testData {
		t.Fatalf("env: %q %v", d, err)
	}
	t.Setenv(DataDirEnv, "")
	t.Chdir(t.TempDir())
	_, err := FindDataDir("")
	if err == nil || !strings.Contains(err.Error(), DataDirEnv+" (not set)") || !strings.Contains(err.Error(), "shared/datasets") {
		t.Fatalf("nothing found: %v", err)
	}
}
