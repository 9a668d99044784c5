package quotesig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// truthy is JavaScript's truthiness of a JSON value (absent counts as undefined).
func truthy(raw json.RawMessage) bool {
	v, err := parse(raw)
	if err != nil || raw == nil {
		return false
	}
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0
	}
	return true // objects and arrays
}

func parse(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// canonicalObject serializes fields as json-stable-stringify does after JSON.parse: keys
// sorted, values re-serialized as JavaScript writes them.
func canonicalObject(fields map[string]json.RawMessage) ([]byte, error) {
	obj := make(map[string]any, len(fields))
	for k, raw := range fields {
		v, err := parse(raw)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", k, err)
		}
		obj[k] = v
	}
	var b strings.Builder
	writeJS(&b, obj)
	return []byte(b.String()), nil
}

func writeJS(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64) // JSON.parse reads every number as a double
		b.WriteString(jsNumber(f))
	case string:
		writeJSString(b, x)
	case []any:
		writeSeq(b, '[', ']', len(x), func(i int) { writeJS(b, x[i]) })
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16) // JavaScript sorts strings by UTF-16 code units
		writeSeq(b, '{', '}', len(keys), func(i int) {
			writeJSString(b, keys[i])
			b.WriteByte(':')
			writeJS(b, x[keys[i]])
		})
	}
}

// writeSeq writes n comma-separated elements between start and end.
func writeSeq(b *strings.Builder, start, end byte, n int, elem func(i int)) {
	b.WriteByte(start)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		elem(i)
	}
	b.WriteByte(end)
}

func compareUTF16(a, c string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(c)))
}

// writeJSString quotes s as JSON.stringify does: only '"', '\\' and control characters are
// escaped (not '<', '>', '&' or U+2028/U+2029, which Go's encoder escapes).
func writeJSString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// jsNumber is JavaScript's Number.prototype.toString for a finite double: the shortest
// digits that read back as f, in plain notation for exponents -7 < e < 21, otherwise as
// d.ddde±x.
func jsNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	if f < 0 {
		return "-" + jsNumber(-f)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
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
