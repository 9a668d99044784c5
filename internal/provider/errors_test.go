package provider

import "testing"

func TestClassify(t *testing.T) {
	tests := []struct {
		kind         Kind
		want         Class
		providerWide bool
	}{
		{KindUpstream, ClassTransient, true},
		{KindTimeout, ClassTransient, true},
		{KindUnavailable, ClassTransient, true},
		{KindCredentials, ClassCredentials, true},
		{KindNotFound, ClassOrderUnknown, false},
		{KindRefused, ClassRefused, false},
		{KindAmountTooLow, ClassRefused, false},
		{KindAmountTooHigh, ClassRefused, false},
		{KindUnsupportedPair, ClassRefused, false},
	}
	for _, tt := range tests {
		e := &Error{Kind: tt.kind}
		got := Classify(e)
		if got != tt.want || got.ProviderWide() != tt.providerWide || e.Retryable() != tt.providerWide {
			t.Errorf("%s: class %d (provider-wide %v, retryable %v); want %d (%v)", tt.kind, got, got.ProviderWide(), e.Retryable(), tt.want, tt.providerWide)
		}
	}
}
