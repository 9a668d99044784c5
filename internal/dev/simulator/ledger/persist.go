package ledger

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// state is what a persisted Book holds on disk: everything its maps hold, byChannel derived.
type state struct {
	Seq       int                       `json:"seq"`
	Orders    []*Order                  `json:"orders"`
	Forgotten []*Order                  `json:"forgotten,omitempty"`
	Created   []createdCount            `json:"created"`
	Submits   map[swapv1.ProviderID]int `json:"submits"`
}

type createdCount struct {
	Provider  swapv1.ProviderID `json:"provider"`
	Recipient string            `json:"recipient"`
	N         int               `json:"n"`
}

// persister writes the book to one file after every change, whole and atomically (a
// temporary file renamed over it), so a crash leaves the previous or the new state, never
// half of one. Books of a dev system hold hundreds of orders, not millions.
type persister struct {
	path string
	// mu orders the writes: each one snapshots the book's latest state while holding it, so
	// the last write always has the newest state.
	mu     sync.Mutex
	failed func(error)
}

// OpenBook returns a Book kept in the file at path: loaded from it when it exists, and
// written to it after every change. failed receives write errors (the book stays usable in
// memory).
func OpenBook(path string, failed func(error)) (*Book, error) {
	b := NewBook()
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		var st state
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, fmt.Errorf("simulator state %s: %w", path, err)
		}
		b.restore(st)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	b.persist = &persister{path: path, failed: failed}
	return b, nil
}

func (b *Book) restore(st state) {
	b.seq = st.Seq
	for _, o := range st.Orders {
		b.byAddress[o.DepositAddress] = o
		b.index(o)
	}
	for _, o := range st.Forgotten {
		b.forgotten[o.DepositAddress] = o
	}
	for _, c := range st.Created {
		b.created[refKey{c.Provider, c.Recipient}] = c.N
	}
	for p, n := range st.Submits {
		b.submits[p] = n
	}
}

// saved persists the book after a change; a no-op for an in-memory book.
func (b *Book) saved() {
	p := b.persist
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	raw, err := json.Marshal(b.state())
	if err == nil {
		err = writeAtomically(p.path, raw)
	}
	if err != nil && p.failed != nil {
		p.failed(err)
	}
}

// state snapshots the book, sorted so the file is stable.
func (b *Book) state() state {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := state{Seq: b.seq, Submits: maps.Clone(b.submits)}
	for _, o := range b.byAddress {
		c := o.snapshot()
		st.Orders = append(st.Orders, &c)
	}
	for _, o := range b.forgotten {
		c := o.snapshot()
		st.Forgotten = append(st.Forgotten, &c)
	}
	byAddress := func(x, y *Order) int { return cmp.Compare(x.DepositAddress, y.DepositAddress) }
	slices.SortFunc(st.Orders, byAddress)
	slices.SortFunc(st.Forgotten, byAddress)
	for k, n := range b.created {
		st.Created = append(st.Created, createdCount{Provider: k.provider, Recipient: k.ref, N: n})
	}
	slices.SortFunc(st.Created, func(x, y createdCount) int {
		return cmp.Or(cmp.Compare(x.Provider, y.Provider), cmp.Compare(x.Recipient, y.Recipient))
	})
	return st
}

func writeAtomically(path string, raw []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone after the rename; removes a failed write's leftovers
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Deposits counts the deposits the book's orders received (the chain's transfer count).
func (b *Book) Deposits() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, o := range b.byAddress {
		n += len(o.Deposits)
	}
	for _, o := range b.forgotten {
		n += len(o.Deposits)
	}
	return n
}
