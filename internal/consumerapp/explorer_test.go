package consumerapp

import (
	"reflect"
	"testing"
)

func TestTxLinks(t *testing.T) {
	tests := []struct {
		name       string
		chain      string
		realChains bool
		want       []txLink
	}{
		{"real providers: the chain's explorer", "sol", true, []txLink{{Hash: "h1", URL: "https://solscan.io/tx/h1"}, {Hash: "h2", URL: "https://solscan.io/tx/h2"}}},
		{"simulated providers: no link", "sol", false, []txLink{{Hash: "h1"}, {Hash: "h2"}}},
		{"a chain without an explorer: no link", "zzz", true, []txLink{{Hash: "h1"}, {Hash: "h2"}}},
	}
	for _, tt := range tests {
		if got := txLinks(tt.chain, []string{"h1", "h2"}, tt.realChains); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if got := txLinks("sol", nil, true); got == nil || len(got) != 0 {
		t.Errorf("no hashes: %#v, want an empty list (the page iterates it)", got)
	}
}
