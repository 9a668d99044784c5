// Package secretvolume lays files out as the kubelet does for a mounted Secret, for tests of
// code that reads one while it changes.
package secretvolume

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Write puts data into dir as the kubelet's atomic writer does: the files live in a fresh
// timestamped folder, ..data is a symlink to it, each key is a symlink into ..data, and an
// update swaps ..data in one rename, so a reader sees either the old files or the new ones,
// never a mix.
func Write(dir string, data map[string]string) error {
	stamp := filepath.Join(dir, ".."+time.Now().UTC().Format("2006_01_02_15_04_05.000000000"))
	if err := os.MkdirAll(stamp, 0o755); err != nil {
		return err
	}
	for name, value := range data {
		if err := os.WriteFile(filepath.Join(stamp, name), []byte(value), 0o600); err != nil {
			return err
		}
	}
	tmp := filepath.Join(dir, "..data_tmp")
	_ = os.Remove(tmp)
	if err := os.Symlink(filepath.Base(stamp), tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
		return fmt.Errorf("swapping ..data: %w", err)
	}
	for name := range data {
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
			return err
		}
	}
	return nil
}
