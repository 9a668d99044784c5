package screening

import (
	"fmt"
	"strings"
)

// SyntheticSDN is an SDN.CSV in the published format listing n made-up addresses (n rounded
// up to a multiple of four), four per record with the ETH, XBT, TRX and SOL tickers: a list
// of a chosen size for load measurements. Its EVM addresses are 0x00…0 to 0x00…n-4 in steps
// of four.
func SyntheticSDN(n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i += 4 {
		fmt.Fprintf(&b, "%d,\"ENTITY %d\",-0- ,\"CYBER2\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"a.k.a. X; "+
			"Digital Currency Address - ETH 0x%040x; Digital Currency Address - XBT bc1q%038x; "+
			"Digital Currency Address - TRX T%033d; Digital Currency Address - SOL S%043d;\"\r\n", 10000+i, i, i, i, i, i)
	}
	b.WriteString("\x1a")
	return []byte(b.String())
}
