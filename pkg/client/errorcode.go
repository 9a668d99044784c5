package client

import "strings"

// IsProviderIDRequired reports whether code is the answer to an order without providerId. Its
// text lists the installation's providers (ProviderIdRequiredCode in the document), so it is
// no ErrorCode constant: "providerId required (route_A | route_B)" where those are the two.
func IsProviderIDRequired(code ErrorCode) bool {
	return strings.HasPrefix(string(code), "providerId required (")
}
