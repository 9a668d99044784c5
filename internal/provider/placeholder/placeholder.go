// Package placeholder holds well-formed addresses per chain for quotes that need an address
// the partner has not given yet (1Click's dry quotes need a recipient and a refund address,
// Relay's quotes a user and a recipient): burn or system addresses nobody can spend from, so a
// preview can never be mistaken for a real destination. The EVM address is the well-known
// burn address; bitcoin, dogecoin and tron use the all-zero key hash, Solana the system
// program, NEAR the system account.
package placeholder

var addresses = map[string]string{
	"eth": evmBurn, "arb": evmBurn, "base": evmBurn, "bsc": evmBurn, "op": evmBurn, "pol": evmBurn, "avax": evmBurn,
	"sol":  "11111111111111111111111111111111",
	"btc":  "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq9e75rs",
	"doge": "D596YFweJQuHY1BbjazZYmAbt8jJPbKehC",
	"tron": "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb",
	"near": "system",
}

const evmBurn = "0x000000000000000000000000000000000000dEaD"

// Address is the placeholder of a chain (short key), empty when none is known (the provider
// then answers with its own validation message).
func Address(chainKey string) string { return addresses[chainKey] }
