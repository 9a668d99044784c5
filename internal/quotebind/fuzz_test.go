package quotebind

import (
	"errors"
	"strings"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/seal"
)

// FuzzVerify: a token the issuer did not sign never verifies, and whatever claims it signs
// verify as they were, without showing the partner.
func FuzzVerify(f *testing.F) {
	keys, err := seal.NewKeyring([2]string{"k1", keyA})
	if err != nil {
		f.Fatal(err)
	}
	iss := NewIssuer(keys)
	good := iss.Sign(claims())
	for _, s := range []string{"", good, good[:len(good)-2], "q2.k1.", "q2.k1.AAAA", "q1.k1.e30.AAAA", "q2." + good, "q2.k9." + strings.Repeat("A", 64)} {
		f.Add(s, "acme", "1000")
	}
	f.Fuzz(func(t *testing.T, token, partner, amount string) {
		if c, err := iss.Verify(token); !errors.Is(err, ErrInvalid) && token != good {
			t.Fatalf("token %q verified as %+v (%v)", token, c, err)
		}
		c := Claims{Partner: partner, Provider: swapv1.ProviderRouteA, Amount: amount, AmountOut: amount, ExpiresAt: 1}
		tok := iss.Sign(c)
		if got, err := iss.Verify(tok); err != nil || got != c {
			t.Fatalf("claims %+v came back as %+v (%v)", c, got, err)
		}
		// The kid is in the clear; what follows is the sealed claims.
		if sealed := strings.TrimPrefix(tok, "q2.k1."); len(partner) >= 8 && strings.Contains(sealed, partner) {
			t.Fatalf("token %q shows the partner %q", tok, partner)
		}
	})
}
