package screening

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"testing"
)

// FuzzParseSDN: any SDN.CSV and SDN_COMMENTS.CSV are parsed or refused, never a panic; every
// address parsed that is a form of a key is found by that key.
func FuzzParseSDN(f *testing.F) {
	f.Add([]byte(sampleSDN), []byte(nil))
	f.Add([]byte("1,\"A\",-0- ,\"P\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"Digital Currency Address - XBT\"\r\n"), []byte("1,\" 1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH.\"\r\n"))
	f.Add([]byte("1,\"A\",-0- ,\"P\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"Digital Currency Address - ETH 0x;Digital Currency Address - USDT T\"\r\n\x1a"), []byte{})
	f.Add([]byte("\"\r\n"), []byte("\"\r\n"))
	f.Fuzz(func(t *testing.T, sdn, comments []byte) {
		parsed, err := ParseSDN(sdn, comments)
		if err != nil {
			return
		}
		l := NewList(parsed.Entries)
		for _, e := range parsed.Entries {
			if k, ok := ListedKey(e.Address); ok {
				if _, found := l.entries[k]; !found {
					t.Fatalf("entry %+v is not found by its key %v", e, k)
				}
			}
		}
	})
}

// FuzzParseExtract: an extract that reads writes back to one that reads the same.
func FuzzParseExtract(f *testing.F) {
	var b bytes.Buffer
	_ = WriteExtract(&b, Extract{Published: "2022-01-20T00:00:00Z", Records: 3, Source: "test",
		Entries: []Entry{{EntNum: 1, Name: "A, \"B\"", Program: "P] [Q", Ticker: "ETH", Address: evmChecksummed}}})
	f.Add(b.Bytes())
	f.Add([]byte(extractMagic + "\n# published: x\n# records: 0\n# addresses: 0\n" + extractHeader + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseExtract(data)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteExtract(&out, e); err != nil {
			return // a date or source no extract writer would write
		}
		again, err := ParseExtract(out.Bytes())
		if err != nil || !reflect.DeepEqual(again, e) {
			t.Fatalf("%+v wrote back as %q: %+v %v", e, out.Bytes(), again, err)
		}
	})
}

// FuzzListedKey: any text is a key or not, never a panic; a key's bytes are hex.
func FuzzListedKey(f *testing.F) {
	for _, s := range []string{evmChecksummed, cashAddr, "bitcoincash:" + cashAddr, "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH",
		"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", ":", "q"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, ok := ListedKey(s)
		if !ok {
			return
		}
		if _, err := hex.DecodeString(k.ID); err != nil || k.ID == "" {
			t.Fatalf("%q reads as %v", s, k)
		}
	})
}
