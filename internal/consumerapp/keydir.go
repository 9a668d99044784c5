package consumerapp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
)

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
