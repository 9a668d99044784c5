package apiserver

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
)

func TestEventTokenOpensOnlyTheStreamUntilItExpires(t *testing.T) {
	h := newHarness(t)
	rec := h.do(req{method: http.MethodPost, path: "/v1/events/token"})
	tok := decode[wire.EventsToken](t, rec, http.StatusOK)
	if want := timestamp(h.now.Add(5 * time.Minute)); tok.ExpiresAt != want {
		t.Errorf("expiresAt %s, want %s", tok.ExpiresAt, want)
	}
	stream := "/v1/events?token=" + url.QueryEscape(tok.Token)

	// The handler tests run without an informer cache: a token that is accepted reaches the
	// handler, which answers that it cannot stream here.
	expectError(t, h.do(req{method: http.MethodGet, path: stream, noAuth: true}), apierror.Unavailable)
	// Only the stream takes a token.
	expectError(t, h.do(req{method: http.MethodGet, path: "/v1/orders?token=" + url.QueryEscape(tok.Token), noAuth: true}), apierror.Unauthorized)
	// A listing cursor or any other sealed value is not a token.
	expectError(t, h.do(req{method: http.MethodGet, path: "/v1/events?token=" + url.QueryEscape(h.srv.cursors.Seal([]byte(`{"k":"acme-key-1","p":"acme","e":99999999999}`))), noAuth: true}), apierror.Unauthorized)

	h.now = h.now.Add(5*time.Minute - time.Second)
	expectError(t, h.do(req{method: http.MethodGet, path: stream, noAuth: true}), apierror.Unavailable)
	h.now = h.now.Add(time.Second)
	rec = h.do(req{method: http.MethodGet, path: stream, noAuth: true})
	expectError(t, rec, apierror.Unauthorized)
	if rec.Header().Get("WWW-Authenticate") == "" {
		t.Error("401 without WWW-Authenticate")
	}
}

func TestEventTokenEndsWithItsKey(t *testing.T) {
	h := newHarness(t)
	tok := decode[wire.EventsToken](t, h.do(req{method: http.MethodPost, path: "/v1/events/token"}), http.StatusOK)
	stream := "/v1/events?token=" + url.QueryEscape(tok.Token)
	expectError(t, h.do(req{method: http.MethodGet, path: stream, noAuth: true}), apierror.Unavailable)

	var acme swapv1.Partner
	if err := h.client.Get(context.Background(), client.ObjectKey{Namespace: testNS, Name: "acme"}, &acme); err != nil {
		t.Fatal(err)
	}
	acme.Spec.Keys = acme.Spec.Keys[1:] // the operator revokes the key the token stands for
	if err := h.client.Update(context.Background(), &acme); err != nil {
		t.Fatal(err)
	}
	expectError(t, h.do(req{method: http.MethodGet, path: stream, noAuth: true}), apierror.Unauthorized)
}
