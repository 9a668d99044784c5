package consumerapp

import "testing"

func TestExplain(t *testing.T) {
	tests := []struct {
		code, detail string
		status       int
		message      string
	}{
		{"amount_too_low", "minimum is 1000", 400, "This amount is below what the route can swap."},
		{"no provider supports this pair", "", 404, "No route swaps these two assets at the moment."},
		{"rate limit exceeded", "", 429, "Too many requests right now."},
		{"upstream timeout", "", 504, "The swap service is not answering right now."},
		{"invalid address", "A Solana address is 32–44 base58 characters (no 0, O, I or l).", 400,
			"A Solana address is 32–44 base58 characters (no 0, O, I or l)."},
		{"something new", "the detail", 409, "the detail"},
		{"something new", "internal detail", 500, "Something went wrong."}, // server details stay in logs
	}
	for _, tt := range tests {
		p := explain(tt.code, tt.detail, tt.status)
		if p.Message != tt.message || p.Action == "" || p.Code != tt.code {
			t.Errorf("explain(%q) = %+v, want message %q and an action", tt.code, p, tt.message)
		}
	}
}

func TestReasonText(t *testing.T) {
	tests := map[string]string{
		"":                       "",
		"AwaitingDeposit":        "",
		"DepositSeen":            "Your deposit is on its way; it is being confirmed on its chain.",
		"CompletedWithoutEgress": "We are waiting to hear back from the provider. Your funds are safe; this page updates by itself.",
		"IncompleteDeposit":      "Less than the quoted amount arrived, so the deposit was sent back to your refund address.",
		"SlippageExceeded":       "The provider reported: slippage exceeded.",
		"FillDelayed":            "The provider reports the swap as delayed. Nothing to do: it is still being processed and this page updates by itself.",
		"DepositAddressShared": "The provider offered a deposit address that other swaps use too, so it was not shown. " +
			"Nothing was taken; start a new swap.",
		"ProviderSignatureInvalid": "The provider's answer could not be verified, so no deposit address was shown. " +
			"Nothing was taken; start a new swap.",
	}
	for reason, want := range tests {
		if got := reasonText(reason); got != want {
			t.Errorf("reasonText(%q) = %q, want %q", reason, got, want)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	want := csrfToken([]byte("k"), "sid")
	tests := []struct {
		name                   string
		origin, site, host, tk string
		ok                     bool
	}{
		{"page's own fetch", "http://127.0.0.1:8088", "same-origin", "127.0.0.1:8088", want, true},
		{"no browser headers (curl with the token)", "", "", "127.0.0.1:8088", want, true},
		{"missing token", "http://127.0.0.1:8088", "same-origin", "127.0.0.1:8088", "", false},
		{"token of another session", "http://127.0.0.1:8088", "same-origin", "127.0.0.1:8088", csrfToken([]byte("k"), "other"), false},
		{"cross-site form", "https://evil.example", "cross-site", "127.0.0.1:8088", want, false},
		{"other origin, same site", "http://127.0.0.1:9999", "same-site", "127.0.0.1:8088", want, false},
	}
	for _, tt := range tests {
		if got := sameOrigin(tt.origin, tt.site, tt.host, tt.tk, want); got != tt.ok {
			t.Errorf("%s: sameOrigin = %v, want %v", tt.name, got, tt.ok)
		}
	}
}

func TestParseLimit(t *testing.T) {
	tests := []struct {
		kind, detail string
		want         amountLimit
	}{
		{"minimum", "minimum amount is 3333333333333334 (route_A)", amountLimit{Kind: "minimum", Amount: "3333333333333334"}},
		{"maximum", "maximum amount is 5000000000", amountLimit{Kind: "maximum", Amount: "5000000000"}},
		{"minimum", "minimum amount is 10 (order ord_x failed)", amountLimit{Kind: "minimum", Amount: "10"}},
		// A route that did not state its minimum: another's number is not the limit.
		{"minimum", "minimum amount is not stated by relay; route_A's minimum is 3333333333333334", amountLimit{Kind: "minimum"}},
		{"maximum", "maximum amount is not stated by relay; route_B's maximum is 7", amountLimit{Kind: "maximum"}},
		{"minimum", "minimum amount is not stated by relay", amountLimit{Kind: "minimum"}},
		{"minimum", "below the provider's minimum", amountLimit{Kind: "minimum"}},
		{"minimum", "minimum amount is 12abc", amountLimit{Kind: "minimum"}},
		{"minimum", "maximum amount is 12", amountLimit{Kind: "minimum"}},
		{"maximum", "", amountLimit{Kind: "maximum"}},
	}
	for _, tt := range tests {
		if got := parseLimit(tt.kind, tt.detail); got == nil || *got != tt.want {
			t.Errorf("parseLimit(%q, %q) = %+v, want %+v", tt.kind, tt.detail, got, tt.want)
		}
	}
}

func TestExplainAmountLimits(t *testing.T) {
	tests := []struct {
		code, detail string
		want         amountLimit
	}{
		{"amount_too_low", "minimum amount is 7 (route_B)", amountLimit{Kind: "minimum", Amount: "7"}},
		{"amount_too_low", "minimum amount is not stated by relay; route_A's minimum is 3333333333333334", amountLimit{Kind: "minimum"}},
		{"amount_too_high", "maximum amount is not stated by relay", amountLimit{Kind: "maximum"}},
		{"amount_too_high", "maximum amount is 5000 (route_B)", amountLimit{Kind: "maximum", Amount: "5000"}},
	}
	for _, tt := range tests {
		p := explain(tt.code, tt.detail, 400)
		if p.Field != "amount" || p.Limit == nil || *p.Limit != tt.want {
			t.Errorf("explain(%q, %q) = %+v (limit %+v), want the amount field and %+v", tt.code, tt.detail, p, p.Limit, tt.want)
		}
	}
	if p := explain("no provider supports this pair", "", 404); p.Field != "" || p.Limit != nil {
		t.Errorf("explain(unsupported pair) = %+v, want no field and no limit", p)
	}
}
