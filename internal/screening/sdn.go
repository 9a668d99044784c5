package screening

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// SDN.CSV as OFAC publishes it: no header, one record per line (CR LF), 12 comma-separated
// fields (ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage, GRT,
// Vess_flag, Vess_owner, Remarks), text in double quotes with "" for a quote, -0- for an
// empty field, and an end-of-file byte (0x1A) on the last line.
//
// Remarks are cut at 1,000 characters, often inside a word or an address; the rest of a long
// remark is published only in SDN_COMMENTS.CSV: two fields, ent_num and Remarks_Extended,
// the continuation to append as is (several records of one ent_num follow in order).
const (
	sdnFields      = 12
	commentsFields = 2
	colEntNum      = 0
	colName        = 1
	colProgram     = 3
	colRemarks     = 11
	sdnNull        = "-0-"
	endOfFile      = "\x1a"
	maxSDNBytes    = 64 << 20
	// remarksLimit is where SDN.CSV cuts a remark.
	remarksLimit = 1000
)

// digitalCurrency finds each "Digital Currency Address - <TICKER> <address>" in a remark; one
// remark may carry several, each ended by ";" (the last may end the remark).
var digitalCurrency = regexp.MustCompile(`Digital Currency Address\s*-\s*([A-Za-z0-9]+)\s+([A-Za-z0-9][A-Za-z0-9._:-]*[A-Za-z0-9])`)

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

// SDN is what SDN.CSV, with SDN_COMMENTS.CSV, lists.
type SDN struct {
	// Entries are the digital currency addresses of every record, in file order.
	Entries []Entry
	// Records is the number of SDN records read.
	Records int
	// Cut are the ent_nums whose remark SDN.CSV cuts with no continuation to complete it:
	// every address from the cut on is missing (the one the cut runs through is dropped,
	// never kept as a fragment).
	Cut []int
}

// ParseSDN reads SDN.CSV, each long remark joined with its continuation from
// SDN_COMMENTS.CSV (comments may be nil: then every remark of 1,000 characters or more counts
// as cut). A file that is not SDN.CSV (a record with the wrong number of fields, an ent_num
// that is not a number) is an error.
func ParseSDN(sdn, comments []byte) (SDN, error) {
	if len(sdn)+len(comments) > maxSDNBytes {
		return SDN{}, fmt.Errorf("SDN.CSV and SDN_COMMENTS.CSV are %d bytes, more than the %d accepted", len(sdn)+len(comments), maxSDNBytes)
	}
	continuations, err := readComments(comments)
	if err != nil {
		return SDN{}, err
	}
	var out SDN
	err = eachRecord("SDN.CSV", sdn, sdnFields, func(ent int, rec []string) {
		out.Records++
		remarks, rest := rec[colRemarks], continuations[ent]
		cut := rest == "" && isCut(remarks, comments != nil)
		if cut {
			out.Cut = append(out.Cut, ent)
		}
		remarks = strings.TrimSpace(remarks + rest)
		if remarks == sdnNull {
			return
		}
		for _, m := range digitalCurrency.FindAllStringSubmatchIndex(remarks, -1) {
			if cut && m[len(m)-1] == len(remarks) {
				// The address the cut runs through.
				continue
			}
			out.Entries = append(out.Entries, Entry{EntNum: ent, Name: field(rec[colName]), Program: field(rec[colProgram]),
				Ticker: remarks[m[2]:m[3]], Address: remarks[m[4]:m[5]]})
		}
	})
	if err != nil {
		return SDN{}, err
	}
	return out, nil
}

// isCut reports whether SDN.CSV cut a remark that has no continuation. Every complete remark
// ends with a period; with the comments file at hand, one of the limit's length that does is
// whole, and without it none of that length can be trusted.
func isCut(remarks string, haveComments bool) bool {
	if len(remarks) < remarksLimit {
		return false
	}
	return !haveComments || !strings.HasSuffix(strings.TrimSpace(remarks), ".")
}

// readComments reads SDN_COMMENTS.CSV into each ent_num's continuation.
func readComments(data []byte) (map[int]string, error) {
	out := map[int]string{}
	err := eachRecord("SDN_COMMENTS.CSV", data, commentsFields, func(ent int, rec []string) {
		if strings.TrimSpace(rec[1]) != sdnNull {
			out[ent] += rec[1]
		}
	})
	return out, err
}

// eachRecord calls fn with each record of an OFAC CSV file of n fields and its ent_num.
func eachRecord(file string, data []byte, n int, fn func(ent int, rec []string)) error {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	// A stray quote inside a quoted field (the published file has had some) is kept as text
	// rather than losing the whole list over it.
	r.LazyQuotes = true
	r.ReuseRecord = true
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(strings.Trim(rec[0], endOfFile)) == "" {
			continue
		}
		if len(rec) != n {
			return fmt.Errorf("%s line %d: %d fields, %s records have %d", file, line, len(rec), file, n)
		}
		ent, err := strconv.Atoi(strings.TrimSpace(rec[colEntNum]))
		if err != nil {
			return fmt.Errorf("%s line %d: ent_num %q is not a number", file, line, rec[colEntNum])
		}
		fn(ent, rec)
	}
}

// field is a field's text: trimmed, and "" for OFAC's null.
func field(s string) string {
	s = strings.TrimSpace(s)
	if s == sdnNull {
		return ""
	}
	return s
}
