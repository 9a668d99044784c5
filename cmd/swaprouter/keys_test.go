package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

// runKeys runs `swaprouter keys ARGS -n swap` against c and returns what it printed.
func runKeys(t *testing.T, c client.Client, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newKeysCommand(func() (client.Client, error) { return c, nil })
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage = true
	cmd.SetArgs(append(args, "-n", "swap"))
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

var printedKey = regexp.MustCompile(`X-Key-Id: (\S+)\nSecret:   (\S+)\n`)

func TestKeysVerbs(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithStatusSubresource(&swapv1.Partner{}).
		WithObjects(&swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "acme", Namespace: "swap"}}).Build()
	created := func(out string) string {
		t.Helper()
		m := printedKey.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no key printed:\n%s", out)
		}
		return m[1]
	}

	out, _, err := runKeys(t, c, "create", "--partner", "acme")
	if err != nil {
		t.Fatal(err)
	}
	first := created(out)
	out, _, err = runKeys(t, c, "create", "--partner", "acme")
	if err != nil {
		t.Fatal(err)
	}
	second := created(out)

	// At the limit, create refuses and names rotate; both keys stay.
	if _, _, err := runKeys(t, c, "create", "--partner", "acme"); err == nil || !strings.Contains(err.Error(), "keys rotate") {
		t.Errorf("third create: %v, want a refusal naming rotate", err)
	}

	out, stderr, err := runKeys(t, c, "rotate", "--partner", "acme", "--grace", "2h")
	if err != nil {
		t.Fatal(err)
	}
	third := created(out)
	if !strings.Contains(stderr, "Key "+first+" keeps working until ") {
		t.Errorf("rotate says:\n%s\nwant when %s stops working", stderr, first)
	}

	out, _, err = runKeys(t, c, "list", "--partner", "acme")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !regexp.MustCompile(`^PARTNER\s+KEY\s+CREATED\s+LAST USED\s+EXPIRES$`).MatchString(lines[0]) {
		t.Fatalf("list:\n%s", out)
	}
	for i, want := range []string{
		`^acme\s+` + first + `\s+\d{4}-\d\d-\d\dT\S+Z\s+never\s+\S+Z \(in \d+h\d+m0s\)$`,
		`^acme\s+` + second + `\s+\S+Z\s+never\s+never$`,
		`^acme\s+` + third + `\s+\S+Z\s+never\s+never$`,
	} {
		if !regexp.MustCompile(want).MatchString(lines[i+1]) {
			t.Errorf("list line %d: %q, want %s", i+1, lines[i+1], want)
		}
	}

	out, _, err = runKeys(t, c, "revoke", first)
	if err != nil || !strings.Contains(out, "revoked key "+first+" of partner acme") {
		t.Errorf("revoke: %v\n%s", err, out)
	}
	infos, err := auth.ListKeys(context.Background(), c, "swap", "acme")
	if err != nil || len(infos) != 2 {
		t.Errorf("keys after revoke: %v, %v", infos, err)
	}
}

// Every verb refuses bad input with a message and an error (the binary exits 1), never help
// with success.
func TestKeysVerbsRefuseBadInput(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(&swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "acme", Namespace: "swap"}}).Build()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"revoke"}, "want one argument, the key id to revoke"},
		{[]string{"revoke", "a", "b"}, "got 2"},
		{[]string{"revoke", "key_nosuchkey"}, "no partner in namespace swap has a key key_nosuchkey"},
		{[]string{"create"}, `required flag(s) "partner" not set`},
		{[]string{"create", "--partner", "ghost"}, "ghost"},
		{[]string{"rotate", "--partner", "acme"}, "no live key to rotate"},
		{[]string{"rotate", "--partner", "acme", "--grace", "soon"}, "invalid argument"},
		{[]string{"list", "--partner", "ghost"}, "not found"},
		{[]string{"frobnicate"}, "unknown command"},
	} {
		_, _, err := runKeys(t, c, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("keys %s: %v, want an error saying %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

func TestPrintKeys(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(d)} }
	var out bytes.Buffer
	err := printKeys(&out, []auth.KeyInfo{
		{Partner: "acme", PartnerKey: swapv1.PartnerKey{ID: "key_old", CreatedAt: at(-48 * time.Hour), ExpiresAt: at(-time.Hour)}, LastUsed: at(-2 * time.Hour)},
		{Partner: "acme", PartnerKey: swapv1.PartnerKey{ID: "key_git"}},
		{Partner: "acme", PartnerKey: swapv1.PartnerKey{ID: "key_new", CreatedAt: at(-time.Minute), ExpiresAt: at(90 * time.Minute)}},
	}, now)
	if err != nil {
		t.Fatal(err)
	}
	want := `PARTNER  KEY      CREATED               LAST USED             EXPIRES
acme     key_old  2026-04-29T12:00:00Z  2026-05-01T10:00:00Z  2026-05-01T11:00:00Z (expired)
acme     key_git  unknown               never                 never
acme     key_new  2026-05-01T11:59:00Z  never                 2026-05-01T13:30:00Z (in 1h30m0s)
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
