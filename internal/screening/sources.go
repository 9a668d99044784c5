package screening

import (
	"context"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Source is one screening source.
type Source interface {
	// Screen answers for the subjects; ok is false when the source is not configured (it is
	// then not consulted and not recorded).
	Screen(ctx context.Context, subjects []Subject) (a Answer, ok bool)
}

// Sources screens with each configured source in turn.
type Sources []Source

// Screen returns every configured source's answer, within the order record's bounds.
func (s Sources) Screen(ctx context.Context, subjects []Subject) []Answer {
	var out []Answer
	for _, src := range s {
		if a, ok := src.Screen(ctx, subjects); ok {
			a.Source.Unavailable = truncate(a.Source.Unavailable, 256)
			out = append(out, a)
		}
	}
	return out
}

// Match is the record of subject s found listed by source as entry.
func Match(s Subject, source, entry string) swapv1.ScreeningMatch {
	return swapv1.ScreeningMatch{Field: s.Field, Chain: s.Chain, Address: s.Address, Source: source, Entry: truncate(entry, 512)}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
