package units

import "testing"

func TestFormatString(t *testing.T) {
	for _, c := range []struct {
		amount   string
		decimals int
		want     string
		ok       bool
	}{
		{"100000000000000000", 18, "0.1", true},
		{"1500000", 6, "1.5", true},
		{"1", 18, "0.000000000000000001", true},
		{"1000000", 6, "1", true},
		{"42", 0, "42", true},
		{"0", 8, "0", true},
		{"12x", 6, "", false},
		{"", 6, "", false},
		{"5", -1, "", false},
	} {
		got, ok := FormatString(c.amount, c.decimals)
		if got != c.want || ok != c.ok {
			t.Errorf("FormatString(%q, %d) = %q, %v; want %q, %v", c.amount, c.decimals, got, ok, c.want, c.ok)
		}
	}
}
