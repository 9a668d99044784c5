package localproc

import (
	"slices"
	"testing"
)

func TestSortVersionsDesc(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"/usr/lib/postgresql/9.6/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/17/bin"},
			[]string{"/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/9.6/bin"}},
		{[]string{"/opt/pg/10.2", "/opt/pg/10.10", "/opt/pg/10"}, []string{"/opt/pg/10.10", "/opt/pg/10.2", "/opt/pg/10"}},
		{nil, nil},
	} {
		got := slices.Clone(tc.in)
		sortVersionsDesc(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("sortVersionsDesc(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
