package eventcursor

import (
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"time"
)

// encodingVersion is the first byte of an encoded position.
const encodingVersion = 1

// ErrMalformed: the bytes are not a position encoded for this scope.
var ErrMalformed = errors.New("not a stream position of this stream")

// Encode writes the position for scope (what the stream carries, e.g. partner and filter): a
// position decodes only for the same scope, so a resume never mixes streams. Times keep
// microseconds, the precision transitions are stored with.
func (p Position) Encode(scope string) []byte {
	b := []byte{encodingVersion}
	b = binary.AppendUvarint(b, uint64(len(scope)))
	b = append(b, scope...)
	w := p.Watermark.UnixMicro()
	b = binary.AppendVarint(b, w)
	keys := slices.Sorted(maps.Keys(p.Sent))
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		s := p.Sent[k]
		b = binary.BigEndian.AppendUint64(b, k)
		b = binary.AppendUvarint(b, uint64(s.Seq))
		b = binary.AppendUvarint(b, uint64(s.At.UnixMicro()-w)) // Sent is never before W
	}
	return b
}

// Decode reads a position Encode wrote for scope.
func Decode(b []byte, scope string) (Position, error) {
	r := reader{b: b}
	if r.byte() != encodingVersion || string(r.bytes(r.uvarint())) != scope {
		return Position{}, ErrMalformed
	}
	w := r.varint()
	p := Position{Watermark: time.UnixMicro(w).UTC(), Sent: map[uint64]Sent{}}
	n := r.uvarint()
	for i := uint64(0); i < n && r.ok(); i++ {
		k := r.uint64()
		seq, at := r.uvarint(), r.uvarint()
		p.Sent[k] = Sent{Seq: int64(seq), At: time.UnixMicro(w + int64(at)).UTC()}
	}
	if !r.ok() || len(r.b) != 0 || uint64(len(p.Sent)) != n {
		return Position{}, ErrMalformed
	}
	return p, nil
}

// reader consumes b; after the first failure every read returns zero and ok is false.
type reader struct {
	b      []byte
	failed bool
}

func (r *reader) ok() bool { return !r.failed }

func (r *reader) fail() { r.failed, r.b = true, nil }

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes(n uint64) []byte {
	if uint64(len(r.b)) < n {
		r.fail()
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) uint64() uint64 {
	b := r.bytes(8)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}
