package consumerapp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
)

// DefaultKeyRereadInterval is how often a KeyDir reads its files again. The kubelet updates a
// mounted Secret within about a minute, so a rotated key is in use within a minute and a half
// of the Secret's change, with no restart.
const DefaultKeyRereadInterval = 30 * time.Second

// LoadKey reads the partner key from dir, laid out as a Kubernetes Secret mounted as a volume:
// a file keyId and a file secret (`kubectl create secret generic swap-app-key
// --from-literal=keyId=... --from-literal=secret=...`).
func LoadKey(dir string) (upstream.Key, error) {
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", fmt.Errorf("partner key: %w", err)
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return "", fmt.Errorf("partner key: %s is empty", filepath.Join(dir, name))
		}
		return v, nil
	}
	id, err := read("keyId")
	if err != nil {
		return upstream.Key{}, err
	}
	secret, err := read("secret")
	if err != nil {
		return upstream.Key{}, err
	}
	return upstream.Key{ID: id, Secret: secret}, nil
}

// KeyDir is the partner key of a folder that may change under the app (a mounted Secret the
// operator updates when rotating the key): it is read again every interval and the last key
// read whole is used. The kubelet swaps a Secret's files in one rename, so both files always
// belong to one key.
type KeyDir struct {
	dir     string
	log     logr.Logger
	current atomic.Pointer[upstream.Key]
}

// WatchKeyDir reads the key from dir (an error when it cannot), then again every interval
// until ctx ends.
func WatchKeyDir(ctx context.Context, dir string, interval time.Duration, log logr.Logger) (*KeyDir, error) {
	k, err := LoadKey(dir)
	if err != nil {
		return nil, err
	}
	d := &KeyDir{dir: dir, log: log}
	d.current.Store(&k)
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				d.reread()
			}
		}
	}()
	return d, nil
}

// Current is the key to call with.
func (d *KeyDir) Current() upstream.Key { return *d.current.Load() }

func (d *KeyDir) reread() {
	k, err := LoadKey(d.dir)
	if err != nil {
		d.log.Error(err, "reading the partner key again; the key read before stays in use", "dir", d.dir)
		return
	}
	if old := d.current.Swap(&k); old.ID != k.ID {
		d.log.Info("calling /v1 with a new partner key", "keyId", k.ID, "previousKeyId", old.ID)
	}
}
