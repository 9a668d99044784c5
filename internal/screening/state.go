package screening

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// State is where the sanctions list stands. It is a function of the list as published (the
// operator's ConfigMap) alone, so every replica that reads the same ConfigMap is in the same
// state, whatever it loaded before.
type State string

const (
	// StateLoaded: the list is whole and lists addresses; orders are screened with it.
	StateLoaded State = "Loaded"
	// StateMissing: there is no list (no ConfigMap).
	StateMissing State = "Missing"
	// StateEmpty: the list lists no digital currency address (no key with a list in the
	// ConfigMap, an empty file, records with no address).
	StateEmpty State = "Empty"
	// StateBroken: the list does not read (not SDN.CSV nor an extract, a truncated extract,
	// two lists in one ConfigMap).
	StateBroken State = "Broken"
	// StateIncomplete: SDN.CSV cuts remarks and their continuation is missing, so addresses
	// after each cut are not on the list. The addresses before the cuts still match.
	StateIncomplete State = "Incomplete"
)

// States lists every state (for metrics and documentation).
func States() []State {
	return []State{StateLoaded, StateMissing, StateEmpty, StateBroken, StateIncomplete}
}

// Usable reports whether orders may be screened with the list alone.
func (s State) Usable() bool { return s == StateLoaded }

// Published is the list as an operator gave it: the keys of its ConfigMap.
type Published struct {
	// Present is false when there is no ConfigMap.
	Present bool
	// Where names the list for messages ("ConfigMap swaprouter-sanctions").
	Where string
	// SDN and Comments are SDN.CSV and SDN_COMMENTS.CSV as published, Extract the compact
	// extract; nil when the ConfigMap has no such key.
	SDN, Comments, Extract []byte
	// Date is the publication date the operator annotated SDN.CSV with (an extract carries
	// its own).
	Date string
}

// Assessment is what a published list is worth.
type Assessment struct {
	State State
	// Detail says why, for an operator.
	Detail string
	// List screens orders: nil unless the state is Loaded or Incomplete.
	List *List
	// Date is the publication date ("" when unknown); Digest a short SHA-256 of what was read.
	Date, Digest string
}

// Version names the list an order was screened with: its date and digest.
func (a Assessment) Version() string {
	if a.Date == "" || a.Date == UnknownDate {
		return "sha256:" + a.Digest
	}
	return fmt.Sprintf("%s sha256:%s", truncate(a.Date, 64), a.Digest)
}

// Assess reads a published list. It never keeps anything from an earlier list: a list that
// does not read is Broken on every replica, however long one of them had a good one.
func Assess(p Published) Assessment {
	where := p.Where
	if where == "" {
		where = "the sanctions list"
	}
	switch {
	case !p.Present:
		return Assessment{State: StateMissing, Detail: where + " does not exist"}
	case p.Extract != nil && (p.SDN != nil || p.Comments != nil):
		return Assessment{State: StateBroken, Detail: where + " holds both an extract and SDN.CSV: keep one"}
	case p.Extract != nil:
		return assessExtract(where, p.Extract)
	case p.SDN == nil && p.Comments != nil:
		return Assessment{State: StateBroken, Detail: where + " holds SDN_COMMENTS.CSV without SDN.CSV"}
	case p.SDN == nil:
		return Assessment{State: StateEmpty, Detail: where + " holds no list"}
	}
	a := Assessment{Date: p.Date, Digest: Digest(p.SDN, p.Comments)}
	sdn, err := ParseSDN(p.SDN, p.Comments)
	switch {
	case err != nil:
		a.State, a.Detail = StateBroken, err.Error()
	case len(sdn.Entries) == 0 && len(sdn.Cut) == 0:
		a.State, a.Detail = StateEmpty, fmt.Sprintf("SDN.CSV has %d records and no digital currency address", sdn.Records)
	default:
		a.List = NewList(sdn.Entries)
		a.State, a.Detail = StateLoaded, loadedDetail(a.List, sdn.Records)
		if len(sdn.Cut) > 0 {
			a.State, a.Detail = StateIncomplete, cutDetail(sdn.Cut, p.Comments != nil)
		}
	}
	return a
}

func assessExtract(where string, data []byte) Assessment {
	a := Assessment{Digest: Digest(data)}
	e, err := ParseExtract(data)
	switch {
	case err != nil:
		a.State, a.Detail = StateBroken, err.Error()
	case len(e.Entries) == 0:
		a.State, a.Detail = StateEmpty, fmt.Sprintf("the extract in %s lists no address", where)
	default:
		a.List, a.Date = NewList(e.Entries), e.Published
		a.State, a.Detail = StateLoaded, loadedDetail(a.List, e.Records)
	}
	return a
}

func loadedDetail(l *List, records int) string {
	sizes := l.Sizes()
	schemes := slices.Sorted(maps.Keys(sizes))
	parts := make([]string, len(schemes))
	for i, s := range schemes {
		parts[i] = fmt.Sprintf("%s %d", s, sizes[s])
	}
	return fmt.Sprintf("%d listed keys (%s) from %d records; %d addresses of other chains", l.Len(), strings.Join(parts, ", "), records, l.Unkeyed())
}

// cutDetail names the records whose remarks were cut (the first few).
func cutDetail(cut []int, haveComments bool) string {
	const shown = 5
	names := make([]string, 0, shown)
	for _, ent := range cut[:min(len(cut), shown)] {
		names = append(names, strconv.Itoa(ent))
	}
	more := ""
	if len(cut) > shown {
		more = fmt.Sprintf(" and %d more", len(cut)-shown)
	}
	missing := "SDN_COMMENTS.CSV is missing"
	if haveComments {
		missing = "SDN_COMMENTS.CSV does not continue them"
	}
	return fmt.Sprintf("SDN.CSV cuts the remarks of ent_num %s%s at 1,000 characters and %s: addresses after each cut are not on the list", strings.Join(names, ", "), more, missing)
}

// Digest is a short SHA-256 of the list's files (how versions name them).
func Digest(files ...[]byte) string {
	h := sha256.New()
	for _, f := range files {
		h.Write(f)
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}
