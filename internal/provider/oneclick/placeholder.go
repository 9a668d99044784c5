package oneclick

// placeholders are well-formed addresses per chain for dry quotes, which 1Click prices only
// with a recipient and a refund address: burn or system addresses nobody can spend from, so a
// preview can never be mistaken for a real destination. The EVM address is the well-known burn
// address; bitcoin, dogecoin and tron use the all-zero key hash, Solana the system program,
// NEAR the system account.
var placeholders = map[string]string{
	"eth": evmBurn, "arb": evmBurn, "base": evmBurn, "bsc": evmBurn, "op": evmBurn, "pol": evmBurn, "avax": evmBurn,
	"sol":  "11111111111111111111111111111111",
	"btc":  "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq9e75rs",
	"doge": "D596YFweJQuHY1BbjazZYmAbt8jJPbKehC",
	"tron": "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb",
	"near": "system",
}

const evmBurn = "0x000000000000000000000000000000000000dEaD"

// placeholder is the dry-quote address of a chain, empty when none is known (1Click then
// answers with its own validation message).
func placeholder(chainKey string) string { return placeholders[chainKey] }
