package screening

import "maps"

// List is the set of listed keys, each with the entry that lists it.
type List struct {
	entries map[Key]Entry
	sizes   map[string]int
	// unkeyed is the number of listed addresses that are no form of a key the service's chains
	// share (Monero, Ripple, ...).
	unkeyed int
}

// NewList indexes entries by the key each address stands for; the first entry of a key
// names it.
func NewList(entries []Entry) *List {
	l := &List{entries: map[Key]Entry{}, sizes: map[string]int{}}
	for _, e := range entries {
		k, ok := ListedKey(e.Address)
		if !ok {
			l.unkeyed++
			continue
		}
		if _, dup := l.entries[k]; !dup {
			l.entries[k] = e
			l.sizes[k.Scheme]++
		}
	}
	return l
}

// Lookup reports the entry that lists the key of addr on chain (a short chain key); false
// when none does.
func (l *List) Lookup(chain, addr string) (Entry, bool) {
	e, ok := l.entries[SubjectKey(chain, addr)]
	return e, ok
}

// Sizes is the number of listed keys per scheme (evm, ed25519, pkh, ...).
func (l *List) Sizes() map[string]int { return maps.Clone(l.sizes) }

// Len is the number of listed keys.
func (l *List) Len() int { return len(l.entries) }

// Unkeyed is the number of listed addresses of chains no key of the service's chains shares.
func (l *List) Unkeyed() int { return l.unkeyed }
