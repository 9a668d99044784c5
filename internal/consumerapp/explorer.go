package consumerapp

// explorers are the block explorers of each chain's transactions (the page links, it never
// fetches them).
var explorers = map[string]string{
	"eth": "https://etherscan.io/tx/", "arb": "https://arbiscan.io/tx/", "base": "https://basescan.org/tx/",
	"op": "https://optimistic.etherscan.io/tx/", "pol": "https://polygonscan.com/tx/", "avax": "https://snowtrace.io/tx/",
	"bsc": "https://bscscan.com/tx/", "sol": "https://solscan.io/tx/", "tron": "https://tronscan.org/#/transaction/",
	"near": "https://nearblocks.io/txns/", "btc": "https://mempool.space/tx/", "doge": "https://dogechain.info/tx/",
}

// explorerTx is the explorer link of a transaction, "" for a chain without one.
func explorerTx(chain, hash string) string {
	if base, ok := explorers[chain]; ok {
		return base + hash
	}
	return ""
}
