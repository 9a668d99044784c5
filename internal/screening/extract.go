package screening

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The extract is the list as the sanctions CronJob keeps it: every digital currency address
// of SDN.CSV joined with SDN_COMMENTS.CSV, one per row, with the publication date. It is a
// CSV file (RFC 4180, LF or CR LF) after a few "# key: value" lines:
//
//	# swaprouter sanctions list extract v1
//	# published: 2022-01-20T15:04:05Z
//	# records: 9876
//	# addresses: 2
//	# source: SDN.CSV sha256:… + SDN_COMMENTS.CSV sha256:…
//	ent_num,sdn_name,program,ticker,address
//	90101,EXAMPLE MIXER,CYBER2,ETH,0xCa0Df2c95Aa144c1d0FF2ff3C8F967fDc1de9EF0
//	90101,EXAMPLE MIXER,CYBER2,XBT,bc1qegxl9j2659zvr58l9leu37t8lhqaa8hs57p3p9
//	# end
//
// published is the list's publication date (RFC 3339, or "unknown"); records the number of SDN
// records read; addresses the number of rows. A copy cut short reads as broken, never as a
// shorter list: it lacks the "# end" line, or the rows it says. Tickers and addresses are as
// published, every chain's included.
const (
	extractMagic  = "# swaprouter sanctions list extract v1"
	extractHeader = "ent_num,sdn_name,program,ticker,address"
	extractEnd    = "# end"
	// UnknownDate is an extract's publication date when the publisher gave none.
	UnknownDate = "unknown"
)

// Extract is the content of an extract.
type Extract struct {
	// Published is the publication date: RFC 3339, or UnknownDate.
	Published string
	// Records is the number of SDN records the extract was made from.
	Records int
	// Source says what it was made from (free text).
	Source  string
	Entries []Entry
}

// WriteExtract writes e in the extract format.
func WriteExtract(w io.Writer, e Extract) error {
	if e.Published == "" || strings.ContainsAny(e.Published+e.Source, "\r\n") {
		return errors.New("an extract needs a publication date, and its header lines one line each")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n# published: %s\n# records: %d\n# addresses: %d\n", extractMagic, e.Published, e.Records, len(e.Entries))
	if e.Source != "" {
		fmt.Fprintf(&b, "# source: %s\n", e.Source)
	}
	cw := csv.NewWriter(&b)
	_ = cw.Write(strings.Split(extractHeader, ","))
	for _, en := range e.Entries {
		_ = cw.Write([]string{strconv.Itoa(en.EntNum), en.Name, en.Program, en.Ticker, en.Address})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	b.WriteString(extractEnd + "\n")
	_, err := w.Write(b.Bytes())
	return err
}

// IsExtract reports whether data begins as an extract does.
func IsExtract(data []byte) bool {
	return bytes.HasPrefix(data, []byte(extractMagic))
}

// ParseExtract reads an extract. Anything that does not read as one whole extract (no magic
// line, a missing date or count, another header, a row short of fields, no end line, fewer or
// more rows than it says) is an error.
func ParseExtract(data []byte) (Extract, error) {
	if !IsExtract(data) {
		return Extract{}, fmt.Errorf("the extract does not begin with %q", extractMagic)
	}
	var e Extract
	meta := map[string]string{}
	rest, metaLines := data, 0
	for bytes.HasPrefix(rest, []byte("#")) {
		metaLines++
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(string(line), "#")), ":")
		if ok {
			meta[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	e.Published, e.Source = meta["published"], meta["source"]
	if e.Published == "" {
		return Extract{}, errors.New("the extract has no published date")
	}
	records, err := strconv.Atoi(meta["records"])
	if err != nil || records < 0 {
		return Extract{}, fmt.Errorf("the extract's records %q is not a count", meta["records"])
	}
	e.Records = records
	addresses, err := strconv.Atoi(meta["addresses"])
	if err != nil || addresses < 0 {
		return Extract{}, fmt.Errorf("the extract's addresses %q is not a count", meta["addresses"])
	}
	rows, found := bytes.CutSuffix(bytes.TrimRight(rest, "\r\n"), []byte(extractEnd))
	if !found {
		return Extract{}, fmt.Errorf("the extract does not end with %q: it is not whole", extractEnd)
	}
	r := csv.NewReader(bytes.NewReader(rows))
	r.FieldsPerRecord = 5
	header, err := r.Read()
	if err != nil || strings.Join(header, ",") != extractHeader {
		return Extract{}, fmt.Errorf("the extract's columns are not %s", extractHeader)
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Extract{}, fmt.Errorf("extract: %w", err)
		}
		line, _ := r.FieldPos(0)
		ent, err := strconv.Atoi(rec[0])
		if err != nil || rec[3] == "" || rec[4] == "" {
			return Extract{}, fmt.Errorf("extract line %d: not an ent_num, ticker and address", metaLines+line)
		}
		e.Entries = append(e.Entries, Entry{EntNum: ent, Name: rec[1], Program: rec[2], Ticker: rec[3], Address: rec[4]})
	}
	if len(e.Entries) != addresses {
		return Extract{}, fmt.Errorf("the extract says %d addresses and has %d rows: it is not whole", addresses, len(e.Entries))
	}
	return e, nil
}
