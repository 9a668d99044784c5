package eventcursor

import (
	"encoding/binary"
	"testing"
	"time"
)

// FuzzDecode: whatever bytes a position token opens to, Decode never panics; a position it
// accepts encodes back to bytes that decode to the same position, for its scope only.
func FuzzDecode(f *testing.F) {
	p := Position{Watermark: at(1234).Add(567 * time.Microsecond), Sent: map[uint64]Sent{
		OrderKey("ord_a"): {Seq: 3, At: at(2000)}, OrderKey("ord_b"): {Seq: 1, At: at(1234)}}}
	for _, seed := range []struct {
		b     []byte
		scope string
	}{
		{p.Encode("acme\x00"), "acme\x00"},
		{p.Encode("acme\x00ord_x"), "acme\x00"},
		{Start(at(0)).Encode("s"), "s"},
		{Position{Watermark: time.UnixMicro(-1 << 62)}.Encode(""), ""},
		{nil, ""},
		{[]byte{encodingVersion, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, ""}, // 2^64−1 orders announced
		{[]byte{encodingVersion, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, ""}, // scope length overflows
	} {
		f.Add(seed.b, seed.scope)
	}
	f.Fuzz(func(t *testing.T, b []byte, scope string) {
		p, err := Decode(b, scope)
		if err != nil {
			return
		}
		again, err := Decode(p.Encode(scope), scope)
		if err != nil {
			t.Fatalf("%x decodes to %+v, whose encoding does not decode: %v", b, p, err)
		}
		if !samePosition(again, p) {
			t.Fatalf("%x decodes to %+v, re-encoded to %+v", b, p, again)
		}
		if _, err := Decode(b, scope+"\x00"); err == nil {
			t.Fatalf("%x decodes for scope %q and for %q", b, scope, scope+"\x00")
		}
	})
}

// FuzzEncode: any position (times in microseconds, the precision Encode keeps) decodes to
// itself from its encoding. The fuzzer's bytes give the orders: 24 bytes each, a key, a seq
// and a time in microseconds.
func FuzzEncode(f *testing.F) {
	f.Add("acme\x00", at(1234).UnixMicro(), orderBytes(OrderKey("ord_a"), 3, at(2000).UnixMicro()))
	f.Add("", int64(0), []byte{})
	f.Add("s", int64(-1), orderBytes(1, -1, -1<<63))
	f.Fuzz(func(t *testing.T, scope string, watermark int64, orders []byte) {
		p := Position{Watermark: time.UnixMicro(watermark).UTC(), Sent: map[uint64]Sent{}}
		for ; len(orders) >= 24; orders = orders[24:] {
			p.Sent[binary.BigEndian.Uint64(orders)] = Sent{
				Seq: int64(binary.BigEndian.Uint64(orders[8:])),
				At:  time.UnixMicro(int64(binary.BigEndian.Uint64(orders[16:]))).UTC(),
			}
		}
		got, err := Decode(p.Encode(scope), scope)
		if err != nil {
			t.Fatalf("%+v for scope %q does not decode: %v", p, scope, err)
		}
		if !samePosition(got, p) {
			t.Fatalf("%+v decoded as %+v", p, got)
		}
	})
}

func orderBytes(key uint64, seq, atMicros int64) []byte {
	b := binary.BigEndian.AppendUint64(nil, key)
	b = binary.BigEndian.AppendUint64(b, uint64(seq))
	return binary.BigEndian.AppendUint64(b, uint64(atMicros))
}

func samePosition(a, b Position) bool {
	if !a.Watermark.Equal(b.Watermark) || len(a.Sent) != len(b.Sent) {
		return false
	}
	for k, s := range a.Sent {
		if o, ok := b.Sent[k]; !ok || o.Seq != s.Seq || !o.At.Equal(s.At) {
			return false
		}
	}
	return true
}
