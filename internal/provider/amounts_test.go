package provider

import "testing"

func TestApplySlippage(t *testing.T) {
	tests := []struct {
		amount  string
		bps     int64
		up      bool
		want    string
		wantErr bool
	}{
		{"1000000", 100, false, "990000", false},
		{"1000000", 100, true, "1010000", false},
		{"999", 100, false, "989", false},
		{"999", 100, true, "1009", false},
		{"5", 0, false, "5", false},
		{"5", 10000, false, "0", false},
		{"x", 1, false, "", true},
		{"-1", 1, false, "", true},
		{"1", 10001, false, "", true},
	}
	for _, tt := range tests {
		got, err := ApplySlippage(tt.amount, tt.bps, tt.up)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ApplySlippage(%s, %d, %v) = %q, %v; want %q", tt.amount, tt.bps, tt.up, got, err, tt.want)
		}
	}
}

func TestIsAmount(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "123": true, "": false, "-1": false, "1.5": false, "1e3": false} {
		if IsAmount(s) != want {
			t.Errorf("IsAmount(%q) = %v", s, !want)
		}
	}
}
