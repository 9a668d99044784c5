package auth

import (
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// OriginAllowed decides the partner's origin rule for a request of p carrying origin (the Origin
// header value, "" when absent): a listed origin passes, an unlisted one does not, and no
// Origin at all (server to server) passes unless the partner requires one.
func OriginAllowed(p *swapv1.Partner, origin string) bool {
	if origin == "" {
		return !p.Spec.RequireOrigin
	}
	return originListed(p.Spec.AllowedOrigins, origin)
}

// AnyPartnerAllows reports whether some partner lists origin. A CORS preflight carries no
// credentials, so it can only be answered for origins someone allowed; the real request is then
// checked against its own partner.
func AnyPartnerAllows(partners []swapv1.Partner, origin string) bool {
	if origin == "" {
		return false
	}
	for i := range partners {
		if originListed(partners[i].Spec.AllowedOrigins, origin) {
			return true
		}
	}
	return false
}

func originListed(allowed []string, origin string) bool {
	o := normalizeOrigin(origin)
	for _, a := range allowed {
		if normalizeOrigin(a) == o {
			return true
		}
	}
	return false
}

// normalizeOrigin makes scheme and host case-insensitive and ignores a trailing slash that
// people add when typing origins into YAML.
func normalizeOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}
