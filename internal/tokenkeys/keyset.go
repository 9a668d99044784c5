package tokenkeys

import (
	"bytes"
	"fmt"

	"github.com/tink-crypto/tink-go/v2/aead"
	"github.com/tink-crypto/tink-go/v2/insecurecleartextkeyset"
	"github.com/tink-crypto/tink-go/v2/keyset"
	tinkpb "github.com/tink-crypto/tink-go/v2/proto/tink_go_proto"
)

// What the `swaprouter quote-keys` verbs do to a keyset file, as functions from the file's
// bytes to the new bytes. Rotation keeps every token readable for its lifetime: Add a key
// (it opens, on every replica once deployed), then Promote it (it seals), then Retire the old
// one once its tokens have expired.

// template is the key new keysets and rotations get: XChaCha20-Poly1305, whose 24-byte random
// nonce makes a repeat negligible however many tokens one key seals.
func template() *tinkpb.KeyTemplate { return aead.XChaCha20Poly1305KeyTemplate() }

// Create returns a new JSON keyset of one key, its primary.
func Create() ([]byte, error) {
	h, err := keyset.NewHandle(template())
	if err != nil {
		return nil, err
	}
	return write(h)
}

// Add returns the keyset with a new key that opens but does not seal yet, and its id.
func Add(raw []byte) ([]byte, uint32, error) {
	var id uint32
	out, err := edit(raw, func(m *keyset.Manager) (err error) {
		id, err = m.Add(template())
		return err
	})
	return out, id, err
}

// Promote returns the keyset with key id its primary: it seals from then on.
func Promote(raw []byte, id uint32) ([]byte, error) {
	return edit(raw, func(m *keyset.Manager) error { return m.SetPrimary(id) })
}

// Retire returns the keyset without key id (not the primary): its tokens no longer open.
func Retire(raw []byte, id uint32) ([]byte, error) {
	return edit(raw, func(m *keyset.Manager) error { return m.Delete(id) })
}

// KeyInfo is what a listing shows of a key; never its material.
type KeyInfo struct {
	ID      uint32
	Type    string
	Status  string
	Primary bool
}

// List describes the keyset's keys, in the file's order.
func List(raw []byte) ([]KeyInfo, error) {
	h, err := readHandle(raw)
	if err != nil {
		return nil, err
	}
	info := h.KeysetInfo()
	out := make([]KeyInfo, 0, len(info.GetKeyInfo()))
	for _, k := range info.GetKeyInfo() {
		out = append(out, KeyInfo{ID: k.GetKeyId(), Type: k.GetTypeUrl(), Status: k.GetStatus().String(),
			Primary: k.GetKeyId() == info.GetPrimaryKeyId()})
	}
	return out, nil
}

// edit applies change to the keyset of raw and returns the result, which must still be a
// keyset the service loads.
func edit(raw []byte, change func(*keyset.Manager) error) ([]byte, error) {
	h, err := readHandle(raw)
	if err != nil {
		return nil, err
	}
	m := keyset.NewManagerFromHandle(h)
	if err := change(m); err != nil {
		return nil, err
	}
	h, err = m.Handle()
	if err != nil {
		return nil, err
	}
	if _, err := fromHandle(h); err != nil {
		return nil, err
	}
	return write(h)
}

func write(h *keyset.Handle) ([]byte, error) {
	var b bytes.Buffer
	if err := insecurecleartextkeyset.Write(h, keyset.NewJSONWriter(&b)); err != nil {
		return nil, fmt.Errorf("writing the keyset: %w", err)
	}
	return b.Bytes(), nil
}
