package consumerapp

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
	"github.com/swaprouter/swaprouter/internal/testing/secretvolume"
)

func TestKeyDirFollowsARotatedSecret(t *testing.T) {
	dir := t.TempDir()
	if err := secretvolume.Write(dir, map[string]string{"keyId": "key_old", "secret": "sk_old\n"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	keys, err := WatchKeyDir(ctx, dir, time.Millisecond, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if got := keys.Current(); got != (upstream.Key{ID: "key_old", Secret: "sk_old"}) {
		t.Fatalf("key %+v", got)
	}
	if err := secretvolume.Write(dir, map[string]string{"keyId": "key_new", "secret": "sk_new"}); err != nil {
		t.Fatal(err)
	}
	NewWithT(t).Eventually(keys.Current).Should(Equal(upstream.Key{ID: "key_new", Secret: "sk_new"}))
}

func TestKeyDirKeepsTheLastKeyWhenTheFilesBreak(t *testing.T) {
	dir := t.TempDir()
	if err := secretvolume.Write(dir, map[string]string{"keyId": "key_a", "secret": "sk_a"}); err != nil {
		t.Fatal(err)
	}
	d := &KeyDir{dir: dir, log: logr.Discard()}
	k, _ := LoadKey(dir)
	d.current.Store(&k)
	if err := secretvolume.Write(dir, map[string]string{"keyId": "key_b", "secret": ""}); err != nil {
		t.Fatal(err)
	}
	d.reread()
	if got := d.Current(); got.ID != "key_a" {
		t.Errorf("key %+v after an empty secret, want key_a kept", got)
	}
}

func TestWatchKeyDirNeedsAKey(t *testing.T) {
	if _, err := WatchKeyDir(context.Background(), t.TempDir(), time.Second, logr.Discard()); err == nil {
		t.Error("an empty folder gave a key")
	}
}
