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

func TestSignificantString(t *testing.T) {
	for _, c := range []struct {
		amount   string
		decimals int
		want     string
	}{
		{"1982345678", 9, "1.982"},
		{"1999999999", 9, "1.999"}, // cut, never rounded up
		{"100000000000000000", 18, "0.1"},
		{"123456789012345678", 18, "0.1234"},
		{"123456", 9, "0.0001234"},
		{"1234567891", 6, "1234"},
		{"123456789", 3, "123456"},
		{"1000000", 6, "1"},
		{"1230000", 6, "1.23"},
		{"0", 6, "0"},
		{"42", 0, "42"},
	} {
		got, ok := SignificantString(c.amount, c.decimals, 4)
		if got != c.want || !ok {
			t.Errorf("SignificantString(%q, %d, 4) = %q, %v; want %q", c.amount, c.decimals, got, ok, c.want)
		}
	}
	if _, ok := SignificantString("1.5", 6, 4); ok {
		t.Error("a non-integer amount was rendered")
	}
}
