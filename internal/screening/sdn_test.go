package screening

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testdata/SDN.CSV and testdata/SDN_COMMENTS.CSV are small files in the published formats.
// Three entities' remarks run past 1,000 characters, and SDN.CSV cuts each where OFAC does,
// at exactly 1,000, the rest following in SDN_COMMENTS.CSV: 90201 inside an XBT address,
// 90202 inside the words "Digital Currency Address" (its ETH and USDT addresses are only in
// the comments), 90203 right after a whole address, before its ";". The comments file also
// continues a record the SDN.CSV copy does not have.
const (
	// The address the cut runs through: SDN.CSV has only its first 30 characters.
	cutAddress  = "3Nr3Wm1yj12difJeFyiZgeyJMPuNDkYhZk"
	cutFragment = "3Nr3Wm1yj12difJeFyiZgeyJMPuNDk"
	// Addresses only the comments file carries.
	exchangeETH = "0x600c8e8CA1392CcbC926Fd829c1Ae4Dc07c8fce9"
	marketETH   = "0xD4bD9413B3DdAf4B561833e08Bc687ea5f750B21"
	marketUSDT  = "TTMMtZTvKjrtMY8eY7ovZ7fCzCbBXDCtr1"
	paymentsETH = "0x5ed5DAeFA4c1B1d4FDb55c41D9aDCd274C4dAC3e"
	// The whole address the cut of 90203 ends with.
	paymentsLast = "1Dzibq6n1peJbyiKvVMMexRFXd5JbfD57P"
	// A short remark's address.
	mixerETH = "0xCa0Df2c95Aa144c1d0FF2ff3C8F967fDc1de9EF0"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func addressesOf(sdn SDN) []string {
	var out []string
	for _, e := range sdn.Entries {
		out = append(out, e.Address)
	}
	return out
}

func TestLongRemarksAreJoinedWithTheirComments(t *testing.T) {
	sdn, err := ParseSDN(readFixture(t, "SDN.CSV"), readFixture(t, "SDN_COMMENTS.CSV"))
	if err != nil {
		t.Fatal(err)
	}
	if sdn.Records != 6 || len(sdn.Cut) != 0 {
		t.Fatalf("records %d, cut %v", sdn.Records, sdn.Cut)
	}
	got := addressesOf(sdn)
	for _, want := range []string{cutAddress, exchangeETH, marketETH, marketUSDT, paymentsETH, paymentsLast, mixerETH} {
		if !slices.Contains(got, want) {
			t.Errorf("%s is lost", want)
		}
	}
	if slices.Contains(got, cutFragment) {
		t.Errorf("the fragment %s is kept", cutFragment)
	}
	l := NewList(sdn.Entries)
	for _, want := range []string{cutAddress, exchangeETH, marketETH, marketUSDT, paymentsETH, paymentsLast} {
		if _, ok := ListedKey(want); !ok {
			t.Fatalf("%s is no key", want)
		}
	}
	if e, ok := l.Lookup("near", strings.ToLower(marketETH)); !ok || e.EntNum != 90202 || e.Ticker != "ETH" {
		t.Errorf("an address only the comments carry, as a NEAR account: %+v %v", e, ok)
	}
	if l.Unkeyed() != 0 {
		t.Errorf("%d addresses read as no key", l.Unkeyed())
	}
}

// Without the comments file, every address up to each cut is kept, the one the cut runs
// through (or may run through) is dropped, and the list says which records were cut.
func TestCutRemarksNeverLeaveAFragment(t *testing.T) {
	sdn, err := ParseSDN(readFixture(t, "SDN.CSV"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sdn.Cut, []int{90201, 90202, 90203}) {
		t.Errorf("cut %v", sdn.Cut)
	}
	got := addressesOf(sdn)
	for _, missing := range []string{cutFragment, cutAddress, paymentsLast, exchangeETH, marketETH} {
		if slices.Contains(got, missing) {
			t.Errorf("%s is kept from a cut remark", missing)
		}
	}
	if !slices.Contains(got, mixerETH) || !slices.ContainsFunc(got, func(a string) bool { return strings.HasPrefix(a, "1") }) {
		t.Errorf("the addresses before the cuts are lost: %v", got)
	}
	for _, a := range got {
		if _, ok := ListedKey(a); !ok {
			t.Errorf("%s is kept and is no address", a)
		}
	}
	// A comments file that does not continue a record cut at 1,000 characters leaves it cut.
	other, err := ParseSDN(readFixture(t, "SDN.CSV"), []byte("17016,\"tive Date.\"\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(other.Cut, []int{90201, 90202, 90203}) {
		t.Errorf("cut %v with a comments file that does not continue them", other.Cut)
	}
}

func TestCommentsThatAreNotSDNComments(t *testing.T) {
	for name, comments := range map[string]string{
		"three fields":  "90201,\"a\",\"b\"\r\n",
		"no ent_num":    "x,\"a\"\r\n",
		"an error page": "<html>maintenance</html>\r\n",
	} {
		if _, err := ParseSDN([]byte(sampleSDN), []byte(comments)); err == nil || !strings.Contains(err.Error(), "SDN_COMMENTS.CSV") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
