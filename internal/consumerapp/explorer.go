package consumerapp

// explorers are the block explorers of each chain's transactions (the page links, it never
// fetches them).
var explorers = map[string]string{
	"eth": "https://etherscan.io/tx/", "arb": "https://arbiscan.io/tx/", "base": "https://basescan.org/tx/",
	"op": "https://optimistic.etherscan.io/tx/", "pol": "https://polygonscan.com/tx/", "avax": "https://snowtrace.io/tx/",
	"bsc": "https://bscscan.com/tx/", "sol": "https://solscan.io/tx/", "tron": "https://tronscan.org/#/transaction/",
	"near": "https://nearblocks.io/txns/", "btc": "https://mempool.space/tx/", "doge": "https://dogechain.info/tx/",
}

// txLinks are the transactions on chain as the page shows them. Only an app that follows real
// providers links them to the chain's public explorer: a simulated hash there is at best a
// dead link and at worst someone else's transaction.
func txLinks(chain string, hashes []string, realChains bool) []txLink {
	out := make([]txLink, 0, len(hashes))
	for _, h := range hashes {
		l := txLink{Hash: h}
		if base, ok := explorers[chain]; ok && realChains {
			l.URL = base + h
		}
		out = append(out, l)
	}
	return out
}
