package screening

import (
	"testing"
)

// FuzzParseSDN: any input is parsed or refused, never a panic; whatever parses finds each of
// its own entries in every case the chain ignores.
func FuzzParseSDN(f *testing.F) {
	f.Add([]byte(sampleSDN))
	f.Add([]byte("1,\"A\",-0- ,\"P\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"Digital Currency Address - XBT\"\r\n"))
	f.Add([]byte("1,\"A\",-0- ,\"P\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"Digital Currency Address - ETH 0x;Digital Currency Address - USDT T\"\r\n\x1a"))
	f.Add([]byte("\"\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseSDN(data)
		if err != nil {
			return
		}
		for k, e := range l.entries {
			if k.address != Canonical(chainFor(k.namespace), e.Address) {
				t.Fatalf("entry %+v stored under %q", e, k.address)
			}
		}
	})
}

// chainFor is a chain of the namespace.
func chainFor(ns string) string {
	if ns == evmNamespace {
		return "eth"
	}
	return ns
}
