package client

import "testing"

func TestIsProviderIDRequired(t *testing.T) {
	for code, want := range map[ErrorCode]bool{
		"providerId required (route_A | route_B)":         true,
		"providerId required (relay | route_A | route_B)": true,
		ErrorCodeInvalidRequest:                           false,
		"providerId":                                      false,
	} {
		if got := IsProviderIDRequired(code); got != want {
			t.Errorf("%q: %v, want %v", code, got, want)
		}
	}
}
