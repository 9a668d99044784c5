package quotebind

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
)

// FuzzVerify: Verify answers any string with claims or ErrInvalid; whatever claims the issuer
// signs verify as they were, without showing the partner; and a signed token with one byte
// changed never verifies.
func FuzzVerify(f *testing.F) {
	iss := NewIssuer(tokenkeys.Random())
	good := iss.Sign(claims())
	for _, s := range []string{"", good, good[:len(good)-2], "q3.", "q3.AAAA", "q2.k1.e30.AAAA", "q3." + good, "q3.AQAAAAE" + strings.Repeat("A", 64)} {
		f.Add(s, "acme", "1000", uint16(7))
	}
	f.Fuzz(func(t *testing.T, token, partner, amount string, flip uint16) {
		if _, err := iss.Verify(token); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("token %q: %v", token, err)
		}
		if !utf8.ValidString(partner) || !utf8.ValidString(amount) {
			// Claims hold validated fields (visible ASCII); JSON would carry invalid UTF-8 as U+FFFD.
			return
		}
		c := Claims{Partner: partner, Provider: swapv1.ProviderRouteA, Amount: amount, AmountOut: amount, ExpiresAt: 1}
		tok := iss.Sign(c)
		if got, err := iss.Verify(tok); err != nil || got != c {
			t.Fatalf("claims %+v came back as %+v (%v)", c, got, err)
		}
		if sealed := strings.TrimPrefix(tok, "q3."); len(partner) >= 8 && strings.Contains(sealed, partner) {
			t.Fatalf("token %q shows the partner %q", tok, partner)
		}
		altered := []byte(tok)
		altered[int(flip)%len(altered)] ^= 1
		if got, err := iss.Verify(string(altered)); !errors.Is(err, ErrInvalid) {
			t.Fatalf("altered token %q verified as %+v", altered, got)
		}
	})
}
