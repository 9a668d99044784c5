package assetindex

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/provider"
)

func TestLookupLoadsOnceUntilStale(t *testing.T) {
	loads := 0
	fail := false
	x := New(time.Minute, func(context.Context) ([]Entry[string], error) {
		loads++
		if fail {
			return nil, errors.New("down")
		}
		return []Entry[string]{
			{Asset: provider.Asset{AssetID: "eip155:1/slip44:60"}, Token: "eth"},
			{Asset: provider.Asset{AssetID: "eip155:1/slip44:60"}, Token: "dup"},
		}, nil
	})
	now := time.Unix(1000, 0)
	x.now = func() time.Time { return now }
	ctx := context.Background()
	e, ok, err := x.Lookup(ctx, "eip155:1/slip44:60")
	if err != nil || !ok || e.Token != "eth" {
		t.Fatalf("Lookup = %+v %v %v", e, ok, err)
	}
	if _, ok, _ := x.Lookup(ctx, "eip155:1/slip44:61"); ok || loads != 1 {
		t.Fatalf("unknown id: ok=%v loads=%d; want false, 1", ok, loads)
	}
	if _, ok := x.Find(func(tok string) bool { return tok == "eth" }); !ok {
		t.Fatal("Find missed")
	}
	now = now.Add(2 * time.Minute)
	fail = true
	if _, _, err := x.Lookup(ctx, "eip155:1/slip44:60"); err == nil || loads != 2 {
		t.Fatalf("stale lookup: err=%v loads=%d", err, loads)
	}
}
