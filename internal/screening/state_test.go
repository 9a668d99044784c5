package screening

import (
	"bytes"
	"strings"
	"testing"
)

func TestAssess(t *testing.T) {
	var extract bytes.Buffer
	if err := WriteExtract(&extract, Extract{Published: "2022-01-20T15:04:05Z", Records: 3,
		Entries: []Entry{{EntNum: 25308, Name: "LAZARUS GROUP", Program: "DPRK3", Ticker: "ETH", Address: evmChecksummed}}}); err != nil {
		t.Fatal(err)
	}
	var noAddresses bytes.Buffer
	if err := WriteExtract(&noAddresses, Extract{Published: "2022-01-20T15:04:05Z", Records: 3}); err != nil {
		t.Fatal(err)
	}
	where := "ConfigMap swaprouter-sanctions"
	tests := []struct {
		name   string
		in     Published
		state  State
		detail string
		listed bool
	}{
		{"no ConfigMap", Published{Where: where}, StateMissing, where + " does not exist", false},
		{"a ConfigMap with no list", Published{Present: true, Where: where}, StateEmpty, where + " holds no list", false},
		{"an empty SDN.CSV", Published{Present: true, SDN: []byte{}}, StateEmpty, "SDN.CSV has 0 records", false},
		{"only the end-of-file byte", Published{Present: true, SDN: []byte("\x1a")}, StateEmpty, "SDN.CSV has 0 records", false},
		{"records without an address", Published{Present: true, SDN: []byte("36,\"AEROCARIBBEAN AIRLINES\",-0- ,\"CUBA\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n")},
			StateEmpty, "SDN.CSV has 1 records and no digital currency address", false},
		{"an extract with no address", Published{Present: true, Where: where, Extract: noAddresses.Bytes()}, StateEmpty, "the extract in " + where + " lists no address", false},
		{"an error page", Published{Present: true, SDN: []byte("<html>maintenance</html>\r\n")}, StateBroken, "SDN.CSV line 1: 1 fields", false},
		{"SDN.CSV and an extract", Published{Present: true, Where: where, SDN: []byte(sampleSDN), Extract: extract.Bytes()}, StateBroken, where + " holds both", false},
		{"comments without SDN.CSV", Published{Present: true, Where: where, Comments: readFixture(t, "SDN_COMMENTS.CSV")}, StateBroken, where + " holds SDN_COMMENTS.CSV without SDN.CSV", false},
		{"an extract cut short", Published{Present: true, Extract: extract.Bytes()[:extract.Len()-10]}, StateBroken, "the extract does not end with", false},
		{"an extract that lost a row", Published{Present: true, Extract: withoutLine(extract.Bytes(), "25308,")}, StateBroken, "the extract says 1 addresses and has 0 rows", false},
		{"a cut remark without its comments", Published{Present: true, SDN: readFixture(t, "SDN.CSV")}, StateIncomplete,
			"SDN.CSV cuts the remarks of ent_num 90201, 90202, 90203 at 1,000 characters and SDN_COMMENTS.CSV is missing", true},
		{"SDN.CSV as published", Published{Present: true, SDN: []byte(sampleSDN), Date: "2026-01-02"}, StateLoaded, "7 listed keys (ed25519 1, evm 4, pkh 2) from 3 records; 1 addresses of other chains", true},
		{"SDN.CSV with its comments", Published{Present: true, SDN: readFixture(t, "SDN.CSV"), Comments: readFixture(t, "SDN_COMMENTS.CSV")}, StateLoaded, "listed keys", true},
		{"an extract", Published{Present: true, Extract: extract.Bytes()}, StateLoaded, "1 listed keys (evm 1) from 3 records", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Assess(tt.in)
			if a.State != tt.state || !strings.Contains(a.Detail, tt.detail) {
				t.Fatalf("%s: %q, want %s: %q", a.State, a.Detail, tt.state, tt.detail)
			}
			if (a.List != nil) != tt.listed {
				t.Errorf("list %v, want one: %v", a.List, tt.listed)
			}
			if a.State.Usable() != (tt.state == StateLoaded) {
				t.Errorf("%s usable: %v", a.State, a.State.Usable())
			}
		})
	}
	if v := Assess(Published{Present: true, Extract: extract.Bytes()}).Version(); !strings.HasPrefix(v, "2022-01-20T15:04:05Z sha256:") {
		t.Errorf("an extract's version %q does not name its publication date", v)
	}
	if v := Assess(Published{Present: true, SDN: []byte(sampleSDN)}).Version(); !strings.HasPrefix(v, "sha256:") {
		t.Errorf("an undated list's version %q", v)
	}
}

// withoutLine is data without its line that begins with prefix.
func withoutLine(data []byte, prefix string) []byte {
	start := bytes.Index(data, []byte("\n"+prefix)) + 1
	end := start + bytes.IndexByte(data[start:], '\n') + 1
	return append(bytes.Clone(data[:start]), data[end:]...)
}
