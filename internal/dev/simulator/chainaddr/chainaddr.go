// Package chainaddr makes deterministic addresses and transaction hashes that look like those
// of each simulated chain (0x-hex on EVM chains, base58 on Solana and Tron, bech32-style on
// Bitcoin, implicit accounts on NEAR). They have the right shape, not valid checksums: nothing
// in the service verifies checksums, and a partner reading them can tell the chains apart.
package chainaddr

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strings"
)

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
const bech32Alphabet = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// Address derives an address on the chain (short key) from the seed parts.
func Address(chain string, seed ...string) string {
	h := digest(append([]string{"addr", chain}, seed...))
	switch chain {
	case "sol":
		return base58(h[:32])
	case "tron":
		return "T" + pad(base58(h[:24]), 33)
	case "btc":
		return "bc1q" + bech32Chars(h[:], 38)
	case "doge":
		return "D" + pad(base58(h[:24]), 33)
	case "near":
		return hex.EncodeToString(h[:32]) // implicit account id
	}
	return "0x" + hex.EncodeToString(h[:20]) // EVM chains
}

// TxHash derives a transaction hash on the chain from the seed parts.
func TxHash(chain string, seed ...string) string {
	h := digest(append([]string{"tx", chain}, seed...))
	switch chain {
	case "sol":
		h2 := digest([]string{"tx2", string(h[:])})
		return base58(append(h[:], h2[:]...))
	case "near":
		return base58(h[:32])
	case "btc", "doge", "tron":
		return hex.EncodeToString(h[:32])
	}
	return "0x" + hex.EncodeToString(h[:32])
}

// ExplorerURL is a plausible block-explorer link for a transaction.
func ExplorerURL(chain, txHash string) string {
	hosts := map[string]string{
		"eth": "https://etherscan.io/tx/", "arb": "https://arbiscan.io/tx/", "base": "https://basescan.org/tx/",
		"bsc": "https://bscscan.com/tx/", "sol": "https://solscan.io/tx/", "tron": "https://tronscan.org/#/transaction/",
		"near": "https://nearblocks.io/txns/", "btc": "https://mempool.space/tx/", "doge": "https://dogechain.info/tx/",
	}
	if h, ok := hosts[chain]; ok {
		return h + txHash
	}
	return ""
}

func digest(parts []string) [32]byte {
	return sha256.Sum256([]byte(strings.Join(parts, "\x00")))
}

func base58(b []byte) string {
	n := new(big.Int).SetBytes(b)
	radix, mod := big.NewInt(58), new(big.Int)
	var out []byte
	for n.Sign() > 0 {
		n.QuoRem(n, radix, mod)
		out = append(out, base58Alphabet[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, '1')
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// pad makes a base58 string exactly n characters long.
func pad(s string, n int) string {
	if len(s) >= n {
		return s[:n]
	}
	return strings.Repeat("1", n-len(s)) + s
}

func bech32Chars(b []byte, n int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < n; i++ {
		sb.WriteByte(bech32Alphabet[int(b[i%len(b)]+byte(i/len(b)))%32])
	}
	return sb.String()
}
