package screening

import "maps"

// List is the set of listed addresses, by namespace and canonical address.
type List struct {
	entries map[listKey]Entry
	sizes   map[string]int
	// records is the number of SDN records read; otherChains the addresses listed on
	// chains this service does not route.
	records, otherChains int
	// digest is a short SHA-256 of the file the list was read from.
	digest string
}

type listKey struct{ namespace, address string }

func newList() *List {
	return &List{entries: map[listKey]Entry{}, sizes: map[string]int{}}
}

func (l *List) add(chain string, e Entry) {
	k := listKey{Namespace(chain), Canonical(chain, e.Address)}
	if _, dup := l.entries[k]; !dup {
		l.sizes[k.namespace]++
	}
	l.entries[k] = e
}

// Lookup reports the entry that lists addr on chain (a short chain key), in its canonical
// form; false when none does.
func (l *List) Lookup(chain, addr string) (Entry, bool) {
	e, ok := l.entries[listKey{Namespace(chain), Canonical(chain, addr)}]
	return e, ok
}

// Sizes is the number of listed addresses per namespace (evm, btc, tron, sol, ...).
func (l *List) Sizes() map[string]int { return maps.Clone(l.sizes) }

// Len is the number of listed addresses on the chains the service routes.
func (l *List) Len() int { return len(l.entries) }

// Records is the number of SDN records the list was read from; OtherChains the listed
// addresses on chains the service does not route.
func (l *List) Records() int     { return l.records }
func (l *List) OtherChains() int { return l.otherChains }

// Digest is a short SHA-256 of the published file: which file answered.
func (l *List) Digest() string { return l.digest }
