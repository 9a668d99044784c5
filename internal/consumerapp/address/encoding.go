package address

import (
	"bytes"
	"crypto/sha256"
	"math/big"
	"strings"
)

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Decode decodes Bitcoin-alphabet base58, keeping leading zero bytes.
func base58Decode(s string) ([]byte, bool) {
	if s == "" {
		return nil, false
	}
	n := new(big.Int)
	radix := big.NewInt(58)
	for _, c := range s {
		i := strings.IndexRune(base58Alphabet, c)
		if i < 0 {
			return nil, false
		}
		n.Mul(n, radix).Add(n, big.NewInt(int64(i)))
	}
	zeros := len(s) - len(strings.TrimLeft(s, "1"))
	return append(make([]byte, zeros), n.Bytes()...), true
}

// base58Check decodes a 25-byte version+payload+checksum address and returns its version.
func base58Check(s string) (byte, bool) {
	b, ok := base58Decode(s)
	if !ok || len(b) != 25 {
		return 0, false
	}
	first := sha256.Sum256(b[:21])
	second := sha256.Sum256(first[:])
	if !bytes.Equal(second[:4], b[21:]) {
		return 0, false
	}
	return b[0], true
}

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// Checksum constants of BIP-173 (bech32, witness v0) and BIP-350 (bech32m, v1+).
const (
	bech32Const  = 1
	bech32mConst = 0x2bc830a3
)

func polymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := range 5 {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

// segwit reports whether addr is a valid segwit address for hrp: the right checksum variant
// for its witness version and a program length that version allows.
func segwit(addr, hrp string) bool {
	if addr != strings.ToLower(addr) && addr != strings.ToUpper(addr) {
		return false
	}
	addr = strings.ToLower(addr)
	sep := strings.LastIndexByte(addr, '1')
	if sep != len(hrp) || len(addr) > 90 || len(addr)-sep-1 < 7 {
		return false
	}
	var data []byte
	for _, c := range addr[sep+1:] {
		i := strings.IndexRune(bech32Charset, c)
		if i < 0 {
			return false
		}
		data = append(data, byte(i))
	}
	var expanded []byte
	for _, c := range []byte(hrp) {
		expanded = append(expanded, c>>5)
	}
	expanded = append(expanded, 0)
	for _, c := range []byte(hrp) {
		expanded = append(expanded, c&31)
	}
	version := data[0]
	want := uint32(bech32Const)
	if version > 0 {
		want = bech32mConst
	}
	if version > 16 || polymod(append(expanded, data...)) != want {
		return false
	}
	program, ok := regroup(data[1 : len(data)-6])
	if !ok || len(program) < 2 || len(program) > 40 {
		return false
	}
	return version != 0 || len(program) == 20 || len(program) == 32
}

// regroup turns 5-bit groups into bytes, refusing non-zero padding.
func regroup(data []byte) ([]byte, bool) {
	var acc, bits uint32
	var out []byte
	for _, v := range data {
		acc = acc<<5 | uint32(v)
		bits += 5
		for bits >= 8 {
			bits -= 8
			out = append(out, byte(acc>>bits))
		}
	}
	if bits >= 5 || (acc<<(8-bits))&0xff != 0 {
		return nil, false
	}
	return out, true
}
