// Package atomicfile writes a file so that a crash mid-write leaves the
// previous file intact.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write calls write with a temporary file in path's directory, syncs it
// and renames it over path. On an error the temporary file is removed and
// path is left as it was.
func Write(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
