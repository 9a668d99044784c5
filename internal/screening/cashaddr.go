package screening

import (
	"encoding/hex"
	"strings"

	"github.com/btcsuite/btcd/btcutil/bech32"
)

// Bitcoin Cash's cashaddr format (q… and p…, the "bitcoincash:" prefix usually left out, as
// the SDN list does): bech32's alphabet with its own 40-bit checksum over the prefix and the
// payload. The payload is a version byte (type in bits 3-6: 0 key hash, 1 script hash; size
// in bits 0-2: 0 for 160 bits) and the hash, the same hash160 a Bitcoin address carries.
const (
	cashAddrPrefix   = "bitcoincash"
	cashAddrCharset  = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	cashAddrChecksum = 8
)

func cashAddrKey(addr string) (Key, bool) {
	if strings.ToLower(addr) != addr && strings.ToUpper(addr) != addr {
		return Key{}, false
	}
	addr = strings.ToLower(addr)
	prefix, body, found := strings.Cut(addr, ":")
	if !found {
		prefix, body = cashAddrPrefix, addr
	}
	if prefix != cashAddrPrefix || len(body) <= cashAddrChecksum {
		return Key{}, false
	}
	values := make([]byte, len(body))
	for i := range len(body) {
		v := strings.IndexByte(cashAddrCharset, body[i])
		if v < 0 {
			return Key{}, false
		}
		values[i] = byte(v)
	}
	checked := make([]byte, 0, len(prefix)+1+len(values))
	for i := range len(prefix) {
		checked = append(checked, prefix[i]&0x1f)
	}
	checked = append(checked, 0)
	checked = append(checked, values...)
	if cashAddrPolymod(checked) != 0 {
		return Key{}, false
	}
	payload, err := bech32.ConvertBits(values[:len(values)-cashAddrChecksum], 5, 8, false)
	if err != nil || len(payload) != 21 {
		return Key{}, false
	}
	switch payload[0] {
	case 0x00:
		return Key{SchemePKH, hex.EncodeToString(payload[1:])}, true
	case 0x08:
		return Key{SchemeSH, hex.EncodeToString(payload[1:])}, true
	}
	return Key{}, false
}

// cashAddrPolymod is the cashaddr checksum: zero over a valid address.
func cashAddrPolymod(values []byte) uint64 {
	generators := [5]uint64{0x98f2bc8e61, 0x79b76d99e2, 0xf33e5fb3c4, 0xae2eabe2a8, 0x1e4f43e470}
	c := uint64(1)
	for _, d := range values {
		top := c >> 35
		c = ((c & 0x07ffffffff) << 5) ^ uint64(d)
		for i, g := range generators {
			if top>>i&1 == 1 {
				c ^= g
			}
		}
	}
	return c ^ 1
}
