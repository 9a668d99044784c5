package quotebind

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/seal"
)

// FuzzVerify: Verify answers any string with claims or ErrInvalid; whatever claims the issuer
// signs verify as they were, without showing the partner; and a signed token with one byte
// changed never verifies.
func FuzzVerify(f *testing.F) {
	keys, err := seal.NewKeyring([2]string{"k1", keyA})
	if err != nil {
		f.Fatal(err)
	}
	iss := NewIssuer(keys)
	good := iss.Sign(claims())
	for _, s := range []string{"", good, good[:len(good)-2], "q2.k1.", "q2.k1.AAAA", "q1.k1.e30.AAAA", "q2." + good, "q2.k9." + strings.Repeat("A", 64)} {
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
		// The kid is in the clear; what follows is the sealed claims.
		if sealed := strings.TrimPrefix(tok, "q2.k1."); len(partner) >= 8 && strings.Contains(sealed, partner) {
			t.Fatalf("token %q shows the partner %q", tok, partner)
		}
		// The last character may carry unused bits of base64; any other changed byte breaks it.
		altered := []byte(tok)
		altered[int(flip)%(len(altered)-1)] ^= 1
		if got, err := iss.Verify(string(altered)); !errors.Is(err, ErrInvalid) {
			t.Fatalf("altered token %q verified as %+v", altered, got)
		}
	})
}
