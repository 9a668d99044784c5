package quotesig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The signed object's possible fields, sorted as JavaScript sorts strings (they are all ASCII,
// so by bytes): the canonical form writes the present ones in this order without sorting, and
// a field is known by its index.
var (
	names     = signedNames()
	nameIndex = indexOf(names)

	requestAlwaysIdx   = indexes(requestAlways)
	requestIfTruthyIdx = indexes(requestIfTruthy)
	quoteAlwaysIdx     = indexes(quoteAlways)
	quoteBoundIdx      = indexes(quoteBound)
)

func signedNames() []string {
	all := slices.Concat(requestAlways, requestIfTruthy, quoteAlways, quoteBound, []string{"timestamp"})
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) > 64 {
		panic("quotesig: more signed fields than a fieldSet holds")
	}
	return all
}

func indexOf(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}

func indexes(list []string) []int {
	out := make([]int, len(list))
	for i, n := range list {
		out[i] = nameIndex[n]
	}
	return out
}

// fieldSet holds raw JSON values of the signed fields, by index in names.
type fieldSet struct {
	has    uint64
	values [64]jsontext.Value
}

func (f *fieldSet) get(i int) (jsontext.Value, bool) { return f.values[i], f.has&(1<<i) != 0 }
func (f *fieldSet) set(i int, v jsontext.Value)      { f.values[i], f.has = v, f.has|1<<i }
func (f *fieldSet) clear(i int)                      { f.values[i], f.has = nil, f.has&^(1<<i) }

// appendCanonical writes the set as json-stable-stringify writes it after JSON.parse: keys
// sorted, values re-serialized as JavaScript writes them.
func (f *fieldSet) appendCanonical(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	for rest := f.has; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		if len(dst) > 1 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, names[i]...) // plain ASCII names: nothing to escape
		dst = append(dst, '"', ':')
		var err error
		if dst, err = appendJSValue(dst, f.values[i]); err != nil {
			return nil, fmt.Errorf("field %s: %w", names[i], err)
		}
	}
	return append(dst, '}'), nil
}

// picked is what a quote response holds of the signed fields.
type picked struct {
	request, quote fieldSet
	timestamp      jsontext.Value
	hasTimestamp   bool
	// signature is the response's signature field ("" when absent or not a string).
	signature string
	// buf holds copies of the values kept; it only grows, so a value kept stays valid.
	buf []byte
}

// read decodes a quote response, keeping the fields of quoteRequest and quote that may be
// signed, the timestamp and the signature, skipping everything else. As JSON.parse does, a repeated name's last value
// counts, and invalid UTF-8 is read (and later written) as U+FFFD.
func (p *picked) read(response []byte) error {
	p.buf = make([]byte, 0, len(response)/2)
	d := jsontext.NewDecoder(bytes.NewBuffer(response), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	err := p.object(d, func(name []byte) error {
		switch string(name) {
		case "quoteRequest":
			return p.section(d, &p.request)
		case "quote":
			return p.section(d, &p.quote)
		case "timestamp":
			v, err := d.ReadValue()
			p.timestamp, p.hasTimestamp = p.keep(v), true
			return err
		case "signature":
			v, err := d.ReadValue()
			p.signature = ""
			if err == nil && v.Kind() == '"' {
				s, _ := jsontext.AppendUnquote(nil, v)
				p.signature = string(s)
			}
			return err
		}
		return d.SkipValue()
	})
	if err != nil {
		return fmt.Errorf("quote response: %w", err)
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return errors.New("quote response: data after the top-level object")
	}
	return nil
}

// section reads quoteRequest or quote into f: an object, or null (no fields).
func (p *picked) section(d *jsontext.Decoder, f *fieldSet) error {
	*f = fieldSet{}
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return err
	}
	return p.object(d, func(name []byte) error {
		i, ok := nameIndex[string(name)]
		if !ok {
			return d.SkipValue()
		}
		v, err := d.ReadValue()
		f.set(i, p.keep(v))
		return err
	})
}

// object reads an object, calling member for each name with the decoder at its value.
func (p *picked) object(d *jsontext.Decoder, member func(name []byte) error) error {
	if d.PeekKind() != '{' {
		_, err := d.ReadToken()
		return cmpOr(err, errors.New("not an object"))
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	var unquoted []byte
	for d.PeekKind() != '}' {
		raw, err := d.ReadValue()
		if err != nil {
			return err
		}
		name := raw[1 : len(raw)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			unquoted, _ = jsontext.AppendUnquote(unquoted[:0], raw)
			name = unquoted
		}
		if err := member(name); err != nil {
			return err
		}
	}
	_, err := d.ReadToken()
	return err
}

func cmpOr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// keep copies v out of the decoder's buffer.
func (p *picked) keep(v jsontext.Value) jsontext.Value {
	start := len(p.buf)
	p.buf = append(p.buf, v...)
	return p.buf[start:len(p.buf):len(p.buf)]
}

// truthy is JavaScript's truthiness of a raw JSON value (nil: absent, undefined).
func truthy(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case 'n', 'f':
		return false
	case 't', '{', '[':
		return true
	case '"':
		return len(raw) > 2 // only "" is the empty string
	}
	f, _ := strconv.ParseFloat(string(raw), 64) // ±Inf on overflow, truthy as in JavaScript
	return f != 0
}

// appendJSValue appends a raw JSON value as JSON.stringify writes what JSON.parse read.
// Strings without escapes and short integers are already in that form and are copied.
func appendJSValue(dst, raw []byte) ([]byte, error) {
	switch raw[0] {
	case 'n', 't', 'f':
		return append(dst, raw...), nil
	case '"':
		if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
			return append(dst, raw...), nil
		}
		s, _ := jsontext.AppendUnquote(nil, raw) // invalid UTF-8 becomes U+FFFD, as in JSON.parse
		return appendJSString(dst, string(s)), nil
	case '{', '[':
		v, err := parse(raw)
		if err != nil {
			return nil, err
		}
		return appendJS(dst, v), nil
	}
	if exactInteger(raw) {
		return append(dst, raw...), nil
	}
	f, _ := strconv.ParseFloat(string(raw), 64) // JSON.parse reads every number as a double
	return append(dst, jsNumber(f)...), nil
}

// exactInteger reports whether a JSON number is an integer JavaScript writes back as it is:
// at most 15 digits (a double holds them exactly), and not -0 (written 0).
func exactInteger(raw []byte) bool {
	digits := bytes.TrimPrefix(raw, []byte{'-'})
	if len(digits) == 0 || len(digits) > 15 || string(raw) == "-0" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func parse(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// appendJS appends a parsed value (a nested object or array) as JSON.stringify writes it,
// object keys sorted as json-stable-stringify sorts them.
func appendJS(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, x)
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return append(dst, jsNumber(f)...)
	case string:
		return appendJSString(dst, x)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJS(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16) // JavaScript sorts strings by UTF-16 code units
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSString(dst, k)
			dst = append(dst, ':')
			dst = appendJS(dst, x[k])
		}
		return append(dst, '}')
	}
	return dst
}

// compareUTF16 orders strings by UTF-16 code units. UTF-8's byte order is code point order,
// which differs from it only between supplementary characters and U+E000–U+FFFF.
func compareUTF16(a, c string) int {
	if ascii(a) || ascii(c) {
		return strings.Compare(a, c)
	}
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(c)))
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// appendJSString quotes s as JSON.stringify does: only '"', '\\' and control characters are
// escaped (not '<', '>', '&' or U+2028/U+2029, which Go's encoder escapes).
func appendJSString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch r {
		case '"':
			dst = append(dst, `\"`...)
		case '\\':
			dst = append(dst, `\\`...)
		case '\b':
			dst = append(dst, `\b`...)
		case '\f':
			dst = append(dst, `\f`...)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		default:
			if r < 0x20 {
				dst = fmt.Appendf(dst, `\u%04x`, r)
			} else {
				dst = utf8.AppendRune(dst, r)
			}
		}
	}
	return append(dst, '"')
}

// jsNumber is JavaScript's Number.prototype.toString for a finite double: the shortest
// digits that read back as f, in plain notation for exponents -7 < e < 21, otherwise as
// d.ddde±x.
func jsNumber(f float64) string {
	switch {
	case f == 0:
		return "0"
	case math.IsInf(f, 0) || math.IsNaN(f):
		return "null" // JSON.stringify's for both infinities
	case f < 0:
		return "-" + jsNumber(-f)
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	k, n := len(digits), e+1 // f = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	sign := "+"
	if n-1 < 0 {
		sign = "-"
	}
	out := digits[:1]
	if k > 1 {
		out += "." + digits[1:]
	}
	return out + "e" + sign + strconv.Itoa(max(n-1, 1-n))
}
