package screening

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/swaprouter/swaprouter/internal/address"
)

// SDN.CSV as OFAC publishes it: no header, one record per line (CR LF), 12 comma-separated
// fields (ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage, GRT,
// Vess_flag, Vess_owner, Remarks), text in double quotes with "" for a quote, -0- for an
// empty field, and an end-of-file byte (0x1A) on the last line.
const (
	sdnFields   = 12
	colEntNum   = 0
	colName     = 1
	colProgram  = 3
	colRemarks  = 11
	sdnNull     = "-0-"
	endOfFile   = "\x1a"
	maxSDNBytes = 64 << 20
)

// digitalCurrency finds each "Digital Currency Address - <TICKER> <address>" in a remarks
// field; one field may carry several, each ended by ";" (the last may end the field).
var digitalCurrency = regexp.MustCompile(`Digital Currency Address\s*-\s*([A-Za-z0-9]+)\s+([A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])`)

// Entry is one listed address and the SDN record that lists it.
type Entry struct {
	EntNum  int
	Name    string
	Program string
	// Ticker and Address as published.
	Ticker  string
	Address string
}

// String names the entry for an order's record and an operator: ent_num, name, program.
func (e Entry) String() string {
	s := fmt.Sprintf("SDN %d %s", e.EntNum, e.Name)
	if e.Program != "" {
		s += " [" + e.Program + "]"
	}
	return s + ": " + e.Ticker + " " + e.Address
}

// tickerChains maps the tickers OFAC uses to the chains this service routes. Tokens issued on
// several chains (USDT, USDC) are placed by the address's shape; tickers of chains the service
// does not route (XMR, LTC, ZEC, ...) are counted and left out.
var tickerChains = map[string][]string{
	"XBT":  {"btc"},
	"ETH":  {"eth"},
	"ARB":  {"arb"},
	"BSC":  {"bsc"},
	"TRX":  {"tron"},
	"SOL":  {"sol"},
	"USDT": {"eth", "tron", "sol"},
	"USDC": {"eth", "tron", "sol"},
}

// chainOf is the chain an address listed under ticker belongs to, "" when none of ours.
func chainOf(ticker, addr string) string {
	chains := tickerChains[strings.ToUpper(ticker)]
	if len(chains) == 1 {
		return chains[0]
	}
	for _, c := range chains {
		if looksLike(c, addr) {
			return c
		}
	}
	return ""
}

// looksLike: an EVM listing need not carry a valid EIP-55 checksum; other chains' addresses
// are checked as a user's would be.
func looksLike(chain, addr string) bool {
	if Namespace(chain) == evmNamespace {
		return len(addr) == 42 && strings.HasPrefix(addr, "0x") && isHex(addr[2:])
	}
	return address.Check(chain, addr) == nil
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil && len(s)%2 == 0
}

// ParseSDN reads SDN.CSV into a List. A file that is not SDN.CSV (a record with the wrong
// number of fields, an ent_num that is not a number, no records at all) is an error: the
// caller keeps its last good list rather than serve an empty or partial one.
func ParseSDN(data []byte) (*List, error) {
	if len(data) > maxSDNBytes {
		return nil, fmt.Errorf("SDN.CSV is %d bytes, more than the %d accepted", len(data), maxSDNBytes)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	// A stray quote inside a quoted field (the published file has had some) is kept as text
	// rather than losing the whole list over it.
	r.LazyQuotes = true
	r.ReuseRecord = true
	l := newList()
	records := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("SDN.CSV: %w", err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(strings.Trim(rec[0], endOfFile)) == "" {
			continue
		}
		if len(rec) != sdnFields {
			return nil, fmt.Errorf("SDN.CSV line %d: %d fields, SDN.CSV records have %d", line, len(rec), sdnFields)
		}
		ent, err := strconv.Atoi(strings.TrimSpace(rec[colEntNum]))
		if err != nil {
			return nil, fmt.Errorf("SDN.CSV line %d: ent_num %q is not a number", line, rec[colEntNum])
		}
		records++
		remarks := field(rec[colRemarks])
		for _, m := range digitalCurrency.FindAllStringSubmatch(remarks, -1) {
			e := Entry{EntNum: ent, Name: field(rec[colName]), Program: field(rec[colProgram]), Ticker: m[1], Address: m[2]}
			chain := chainOf(e.Ticker, e.Address)
			if chain == "" {
				l.otherChains++
				continue
			}
			l.add(chain, e)
		}
	}
	if records == 0 {
		return nil, errors.New("SDN.CSV has no records")
	}
	l.records = records
	sum := sha256.Sum256(data)
	l.digest = hex.EncodeToString(sum[:6])
	return l, nil
}

// field is a field's text: trimmed, and "" for OFAC's null.
func field(s string) string {
	s = strings.TrimSpace(s)
	if s == sdnNull {
		return ""
	}
	return s
}
