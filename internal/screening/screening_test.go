package screening

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		chain, in, want string
	}{
		{"eth", "0x8589427373D6D84E98730D7795D8f6f8731FDA16", "0x8589427373d6d84e98730d7795d8f6f8731fda16"},
		{"arb", "0X8589427373D6D84E98730D7795D8F6F8731FDA16", "0x8589427373d6d84e98730d7795d8f6f8731fda16"},
		{"btc", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"},
		{"btc", "1AjZPMsnmpdK2Rv9KQNfMurTXinscVro9V", "1AjZPMsnmpdK2Rv9KQNfMurTXinscVro9V"},
		{"tron", "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf", "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"},
		{"sol", "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU", "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"},
		{"doge", "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L"},
		{"near", "Alice.Near", "alice.near"},
	}
	for _, tt := range tests {
		if got := Canonical(tt.chain, tt.in); got != tt.want {
			t.Errorf("Canonical(%s, %s) = %s, want %s", tt.chain, tt.in, got, tt.want)
		}
	}
}

// sampleSDN is written the way OFAC publishes SDN.CSV: no header, CR LF, quoted text with
// "" for a quote, -0- (often followed by a space) for empty fields, several addresses in
// one remarks field, and the end-of-file byte on the last line.
const sampleSDN = "36,\"AEROCARIBBEAN AIRLINES\",-0- ,\"CUBA\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n" +
	"25308,\"LAZARUS GROUP\",-0- ,\"DPRK3\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"a.k.a. \"\"APPLEWORM\"\"; Digital Currency Address - ETH 0x098B716B8Aaf21512996dC57EB0615e2383E2f96; alt. Digital Currency Address - ETH 0xa0e1c89Ef1a489c9C7dE96311eD5Ce5D32c20E4B; Digital Currency Address - XBT bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4; Digital Currency Address - XMR 4AdUndXHHZ6cfufTMvppY6JwXNouMBzSkbLYfpAV5Usx3skxNgYeYTRj5UzqtReoS44qo9mtmXCqY45DJ852K5Jv2684Rge; Digital Currency Address - USDT TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf; Digital Currency Address - USDC 0x8589427373D6D84E98730D7795D8f6f8731FDA16\"\r\n" +
	"30000,\"SMITH, John\",\"individual\",\"CYBER2] [SDGT\",\"Director, \"\"Example\"\" Ltd\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"DOB 01 Jan 1980; Digital Currency Address - XBT 1AjZPMsnmpdK2Rv9KQNfMurTXinscVro9V; Digital Currency Address - TRX TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf; Digital Currency Address - SOL 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU.\"\r\n" +
	"\x1a"

func TestParseSDN(t *testing.T) {
	sdn, err := ParseSDN([]byte(sampleSDN), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sdn.Records != 3 || len(sdn.Cut) != 0 {
		t.Errorf("records = %d, cut %v; want 3 and none", sdn.Records, sdn.Cut)
	}
	l := NewList(sdn.Entries)
	tests := []struct {
		chain, addr string
		entNum      int
		ticker      string
	}{
		// EVM, listed checksummed, found in any case and on every EVM chain.
		{"eth", "0x098b716b8aaf21512996dc57eb0615e2383e2f96", 25308, "ETH"},
		{"bsc", "0x098B716B8AAF21512996DC57EB0615E2383E2F96", 25308, "ETH"},
		// "alt." entries count too.
		{"eth", "0xa0e1c89ef1a489c9c7de96311ed5ce5d32c20e4b", 25308, "ETH"},
		{"btc", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", 25308, "XBT"},
		// A multi-chain token: the address's form says which key it is.
		{"eth", "0x8589427373d6d84e98730d7795d8f6f8731fda16", 25308, "USDC"},
		{"tron", "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf", 25308, "USDT"},
		// The last address of a field with quotes, commas and a closing period.
		{"sol", "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU", 30000, "SOL"},
		{"btc", "1AjZPMsnmpdK2Rv9KQNfMurTXinscVro9V", 30000, "XBT"},
	}
	for _, tt := range tests {
		e, ok := l.Lookup(tt.chain, tt.addr)
		if !ok {
			t.Errorf("%s %s is not listed", tt.chain, tt.addr)
			continue
		}
		if e.EntNum != tt.entNum || e.Ticker != tt.ticker {
			t.Errorf("%s %s: entry %+v, want ent_num %d ticker %s", tt.chain, tt.addr, e, tt.entNum, tt.ticker)
		}
	}
	// Base58 is exact: another case is another address.
	if _, ok := l.Lookup("btc", "1ajzpmsnmpdk2rv9kqnfmurtxinscvro9v"); ok {
		t.Errorf("a base58 address matched in another case")
	}
	stray, err := ParseSDN([]byte("7,\"THE \"BEST\" CO\",-0- ,\"P\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"Digital Currency Address - XBT 1AjZPMsnmpdK2Rv9KQNfMurTXinscVro9V\"\r\n"), nil)
	if err != nil {
		t.Fatalf("a stray quote inside a quoted field: %v", err)
	}
	if e, ok := NewList(stray.Entries).Lookup("btc", "1AjZPMsnmpdK2Rv9KQNfMurTXinscVro9V"); !ok || e.Name != `THE "BEST" CO` {
		t.Errorf("a stray quote: %+v", e)
	}
	e, _ := l.Lookup("sol", "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU")
	if e.Name != "SMITH, John" || e.Program != "CYBER2] [SDGT" {
		t.Errorf("quoted fields read as %+v", e)
	}
	if got := e.String(); got != "SDN 30000 SMITH, John [CYBER2] [SDGT]: SOL 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU" {
		t.Errorf("entry reads %q", got)
	}
	// The USDT and TRX listings of one Tron address are one key (the first names it).
	want := map[string]int{SchemeEVM: 4, SchemePKH: 2, SchemeEd25519: 1}
	if got := l.Sizes(); len(got) != len(want) || got[SchemeEVM] != 4 || got[SchemePKH] != 2 || got[SchemeEd25519] != 1 {
		t.Errorf("sizes %v, want %v", got, want)
	}
	if l.Unkeyed() != 1 {
		t.Errorf("unkeyed = %d, want 1 (the XMR address)", l.Unkeyed())
	}
}

func TestParseSDNRefusesWhatIsNotSDN(t *testing.T) {
	for name, in := range map[string]string{
		"an HTML page":   "<html><body>Service Unavailable</body></html>\r\n",
		"too few fields": "36,\"AEROCARIBBEAN AIRLINES\",-0- ,\"CUBA\"\r\n",
		"no ent_num":     "x,\"A\",-0- ,\"CUBA\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n",
		"an open quote":  "36,\"A,-0- ,\"CUBA\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n",
	} {
		if _, err := ParseSDN([]byte(in), nil); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	_, err := ParseSDN([]byte(strings.Replace(sampleSDN, "30000,", "30000,\"extra\",", 1)), nil)
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("a bad record is not named by its line: %v", err)
	}
}

func TestDecide(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	list := swapv1.ScreeningSource{Name: "ofac-sdn", Version: "2026-01-01 abc"}
	down := swapv1.ScreeningSource{Name: "chainalysis", Unavailable: "timeout"}
	match := swapv1.ScreeningMatch{Field: "refundTo", Chain: "eth", Address: "0xabc", Source: "ofac-sdn", Entry: "SDN 1"}
	clear := Answer{Source: list}
	listed := Answer{Source: list, Matches: []swapv1.ScreeningMatch{match}}
	unavailable := Answer{Source: down}
	noListSource := swapv1.ScreeningSource{Name: "ofac-sdn", Unavailable: "the sanctions list is missing: ConfigMap swaprouter-sanctions does not exist"}
	noList := Answer{Source: noListSource, NoList: true}
	// An incomplete list still matches the addresses it has.
	partial := Answer{Source: noListSource, NoList: true, Matches: []swapv1.ScreeningMatch{match}}
	review := &swapv1.PartnerScreening{OnMatch: swapv1.ScreeningHoldForReview}
	open := &swapv1.PartnerScreening{OnUnavailable: swapv1.ScreeningFailOpen}
	tests := []struct {
		name    string
		policy  *swapv1.PartnerScreening
		answers []Answer
		verdict Verdict
		outcome swapv1.ScreeningOutcome
	}{
		{"clear", nil, []Answer{clear}, Allow, swapv1.ScreeningClear},
		{"a match blocks by default", nil, []Answer{listed}, Block, ""},
		{"a match under review holds", review, []Answer{listed}, Hold, swapv1.ScreeningHeld},
		{"a match blocks even when another source is down", open, []Answer{listed, unavailable}, Block, ""},
		{"a source down holds by default", nil, []Answer{clear, unavailable}, Hold, swapv1.ScreeningHeld},
		{"a source down under fail-open lets through", open, []Answer{clear, unavailable}, Allow, swapv1.ScreeningFailedOpen},
		{"no usable list refuses by default", nil, []Answer{noList}, Refuse, ""},
		{"no usable list refuses though another source is down", nil, []Answer{noList, unavailable}, Refuse, ""},
		{"no usable list under fail-open lets through", open, []Answer{noList}, Allow, swapv1.ScreeningFailedOpen},
		{"what an incomplete list matches blocks", open, []Answer{partial}, Block, ""},
		{"what an incomplete list matches is held under review", review, []Answer{partial}, Hold, swapv1.ScreeningHeld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.policy, tt.answers, at)
			if d.Verdict != tt.verdict {
				t.Fatalf("verdict %v, want %v", d.Verdict, tt.verdict)
			}
			if tt.verdict == Block {
				if d.Record != nil || d.Blocked == nil || *d.Blocked != match {
					t.Fatalf("a block: record %v, blocked %v", d.Record, d.Blocked)
				}
				return
			}
			if tt.verdict == Refuse {
				if d.Record != nil || d.Blocked != nil {
					t.Fatalf("a refusal: record %v, blocked %v", d.Record, d.Blocked)
				}
				return
			}
			if d.Record.Outcome != tt.outcome || !d.Record.At.Equal(&at) || len(d.Record.Sources) != len(tt.answers) {
				t.Fatalf("record %+v", d.Record)
			}
		})
	}
}

func TestDecideWithoutSources(t *testing.T) {
	if d := Decide(nil, nil, metav1.Now()); d.Verdict != Allow || d.Record != nil {
		t.Fatalf("no source configured: %+v", d)
	}
}
