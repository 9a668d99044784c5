package opctl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/opctl/verbs"
	"github.com/swaprouter/swaprouter/internal/orderquery"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

// session is one plugin run: the cluster, the archive (when given) and who asks.
type session struct {
	kube   client.Client
	orders orderquery.Reader
	by     string
	wait   time.Duration
	// out gets the outcome, progress the lines printed while waiting.
	out, progress io.Writer
	close         func()
}

func openSession(cmd *cobra.Command, loading *clientcmd.ClientConfigLoadingRules, overrides *clientcmd.ConfigOverrides, by, dsn string, wait time.Duration) (*session, error) {
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, err
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, err
	}
	kube, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, err
	}
	if by == "" {
		by = kubeconfigUser(cc)
	}
	s := &session{kube: kube, orders: orderquery.Reader{Kube: kube, Namespace: ns}, by: by, wait: wait,
		out: cmd.OutOrStdout(), progress: cmd.ErrOrStderr(), close: func() {}}
	if dsn == "" {
		return s, nil
	}
	a, err := archive.Open(dsn)
	if err != nil {
		return nil, err
	}
	// Read only, as `swaprouter orders`: the manager migrates the schema at start.
	if err := a.CheckSchema(cmd.Context()); err != nil {
		a.Close()
		return nil, err
	}
	s.orders.Archive, s.close = a, a.Close
	return s, nil
}

// found is the order a request is about, and what verbs.Decide needs to know of it.
type found struct {
	order *swapv1.SwapOrder
	state verbs.Order
}

// find reads the order from etcd, else from the archive. Without the archive an order not in
// etcd cannot be told apart from one that does not exist, and no verb acts on either but a
// redeliver of an archived order: the answer says what to give.
func (s *session) find(ctx context.Context, arg string, v verbs.Verb) (found, error) {
	id := strings.ReplaceAll(arg, "-", "_") // the SwapOrder name is the id with '-' for '_'
	got, err := s.orders.Get(ctx, id)
	switch {
	case errors.Is(err, orderquery.ErrNotFound) && s.orders.Archive == nil:
		return found{}, fmt.Errorf("%s refused: order %s is not in etcd: it does not exist, or it ended and left etcd for the archive; "+
			"give --archive-dsn (or $SWAPROUTER_ARCHIVE_DSN) to look there", v, id)
	case errors.Is(err, orderquery.ErrNotFound):
		return found{state: verbs.Order{ID: id, Where: verbs.Missing}}, nil
	case err != nil:
		return found{}, err
	}
	enabled := false
	if v == verbs.Redeliver {
		var p swapv1.Partner
		err := s.kube.Get(ctx, client.ObjectKey{Namespace: s.orders.Namespace, Name: got.Order.Spec.Partner}, &p)
		if client.IgnoreNotFound(err) != nil {
			return found{}, fmt.Errorf("reading partner %s: %w", got.Order.Spec.Partner, err)
		}
		enabled = err == nil && delivery.Enabled(&p)
	}
	state := verbs.Of(got.Order, enabled)
	if got.Source == orderquery.Archived {
		state.Where = verbs.Archived
	}
	return found{order: got.Order, state: state}, nil
}

// ask carries out one request: refuse it at once when verbs.Decide does; redeliver an order
// the order reconciler no longer sees directly; else write the annotation (value) and wait
// for the reconciler's answer.
func (s *session) ask(ctx context.Context, arg string, req verbs.Request, value string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	f, err := s.find(ctx, arg, req.Verb)
	if err != nil {
		return err
	}
	if err := verbs.Decide(req, f.state); err != nil {
		return err
	}
	if req.Verb == verbs.Redeliver && outOfReach(f) {
		return s.redeliverHere(ctx, f)
	}
	seen, err := s.outcomeEvents(ctx, f.order, req.Verb)
	if err != nil {
		return err
	}
	before := countsOf(seen)
	var annotation any = value
	if req.Verb == verbs.Resume {
		annotation = nil
	}
	if err := s.annotate(ctx, f.order, req.Verb.Annotation(), annotation); err != nil {
		return err
	}
	return s.await(ctx, f.order, req, value, before)
}

// outOfReach reports whether the order reconciler no longer sees the order: it left etcd, or
// it is labelled archived (the caches hold live orders only).
func outOfReach(f found) bool {
	return f.state.Where == verbs.Archived || f.order.Labels[swapv1.LabelArchived] == "true"
}

// redeliverHere asks the controllers, with a RedeliveryRequest, to send every event of an
// order out of the order reconciler's reach again (it left etcd, or is archived there), and
// waits for their answer: only the controllers create webhook deliveries, from the order's
// record in etcd or the archive.
func (s *session) redeliverHere(ctx context.Context, f found) error {
	o := f.order
	rq := &swapv1.RedeliveryRequest{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.orders.Namespace, GenerateName: o.Name + "-"},
		Spec:       swapv1.RedeliveryRequestSpec{Partner: o.Spec.Partner, OrderID: o.Spec.OrderID},
	}
	if err := s.kube.Create(ctx, rq); err != nil {
		return fmt.Errorf("redeliver of order %s: %w", o.Spec.OrderID, err)
	}
	start, lastSaid := time.Now(), time.Now()
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	for rq.Status.Phase == "" {
		if time.Since(start) > s.wait {
			return fmt.Errorf("redeliver of order %s: no answer from the controllers within %s; the request stays "+
				"and is answered once they run: is the manager running? (kubectl describe redeliveryrequest %s)", o.Spec.OrderID, s.wait, rq.Name)
		}
		if time.Since(lastSaid) >= progressEvery {
			lastSaid = time.Now()
			fmt.Fprintf(s.progress, "waiting for the controllers to answer redeliver of order %s (%s of at most %s)\n",
				o.Spec.OrderID, time.Since(start).Round(time.Second), s.wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if err := s.kube.Get(ctx, client.ObjectKeyFromObject(rq), rq); err != nil {
			return fmt.Errorf("redeliver of order %s: reading request %s: %w", o.Spec.OrderID, rq.Name, err)
		}
	}
	if rq.Status.Phase == swapv1.RedeliveryRefused {
		return fmt.Errorf("redeliver of order %s refused: %s", o.Spec.OrderID, rq.Status.Reason)
	}
	where := "archived"
	if f.state.Where == verbs.Archived {
		where = "archived, read from the archive"
	}
	_, err := fmt.Fprintf(s.out, "order %s (%s, %s): %d webhook events sent again\n", o.Spec.OrderID, o.Status.Status, where, len(rq.Status.Deliveries))
	return err
}

// annotate merge-patches one annotation of the order (nil removes it).
func (s *session) annotate(ctx context.Context, o *swapv1.SwapOrder, key string, value any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: value}}})
	if err != nil {
		return err
	}
	if err := s.kube.Patch(ctx, o.DeepCopy(), client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("swaporder %s/%s: %w", o.Namespace, o.Name, err)
	}
	return nil
}

// kubeconfigUser is the user of the current context, else $USER.
func kubeconfigUser(cc clientcmd.ClientConfig) string {
	if raw, err := cc.RawConfig(); err == nil {
		if ctx, ok := raw.Contexts[raw.CurrentContext]; ok && ctx.AuthInfo != "" {
			return ctx.AuthInfo
		}
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown"
}
