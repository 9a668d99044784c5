package screening

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcutil/base58"
	"github.com/btcsuite/btcd/btcutil/bech32"
	solbase58 "github.com/mr-tron/base58"
)

// SyntheticSDN is an SDN.CSV in the published format listing n made-up keys (n rounded up to
// a multiple of four), four per record with the ETH, XBT, TRX and SOL tickers, each a valid
// address of its chain: a list of a chosen size for load measurements. Its EVM addresses are
// 0x00…0 to 0x00…n-4 in steps of four; the other keys differ from every EVM key.
func SyntheticSDN(n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i += 4 {
		var pkh, tron [20]byte
		var sol [32]byte
		binary.BigEndian.PutUint64(pkh[12:], uint64(i))
		pkh[0] = 0xb7
		binary.BigEndian.PutUint64(tron[12:], uint64(i))
		tron[0] = 0x7e
		binary.BigEndian.PutUint64(sol[24:], uint64(i))
		sol[0] = 0x5a
		program, _ := bech32.ConvertBits(pkh[:], 8, 5, true)
		xbt, _ := bech32.Encode("bc", append([]byte{0}, program...))
		fmt.Fprintf(&b, "%d,\"ENTITY %d\",-0- ,\"CYBER2\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"a.k.a. X; "+
			"Digital Currency Address - ETH 0x%040x; Digital Currency Address - XBT %s; "+
			"Digital Currency Address - TRX %s; Digital Currency Address - SOL %s.\"\r\n",
			10000+i, i, i, xbt, base58.CheckEncode(tron[:], tronVersion), solbase58.Encode(sol[:]))
	}
	b.WriteString("\x1a")
	return []byte(b.String())
}
