package catalog

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/swaprouter/swaprouter/internal/metricsreg"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// newTextSanitized counts the assets whose symbol or name a provider listed with characters
// /v1/assets never passes on (changed or refused), per provider.
func newTextSanitized(reg prometheus.Registerer) *prometheus.CounterVec {
	return metricsreg.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "swaprouter_catalog_asset_text_sanitized_total",
		Help: "Assets whose provider-supplied symbol or name had control, bidi, zero-width or markup characters removed (or that were refused for having no symbol left), by provider.",
	}, []string{"provider"}))
}

// cleanAssetText returns a with a symbol and name fit for any partner's UI (cleanText), and
// whether anything changed. ok is false when no symbol is left: such an asset is not listed.
// A name with nothing left is the symbol.
func cleanAssetText(a provider.Asset) (_ provider.Asset, changed, ok bool) {
	symbol, name := cleanText(a.Symbol), cleanText(a.Name)
	changed = symbol != a.Symbol || name != a.Name
	if name == "" {
		name = symbol
	}
	a.Symbol, a.Name = symbol, name
	return a, changed, symbol != ""
}

// cleanText drops what a provider's asset text must not carry to a partner's page: control
// and format characters (bidi overrides and isolates, zero-width characters, soft hyphens),
// invalid UTF-8 (and U+FFFD, which stands for it), and the characters that open markup or leave an attribute (< > " ' `). Runs
// of white space become one space; the ends are trimmed.
func cleanText(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r), unicode.In(r, unicode.Zl, unicode.Zp):
			space = b.Len() > 0
			continue
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r), strings.ContainsRune("<>\"'`", r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
