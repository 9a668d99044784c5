package node

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/testing/node"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// frontendURL is the frontend Service, by its cluster DNS name.
const frontendURL = "http://swaprouter-frontend." + namespace + ".svc.cluster.local"

// listedSender is an ETH address the mirror's sample SDN.CSV lists.
const listedSender = "0xCa0Df2c95Aa144c1d0FF2ff3C8F967fDc1de9EF0"

// partnerManifest is a Partner declared as config/samples/partner.yaml declares one.
const partnerManifest = `apiVersion: swap.swaprouter.dev/v1alpha1
kind: Partner
metadata: {name: %[1]s}
spec:
  displayName: %[1]s
  tier: %[2]s
`

// webhookManifest sends a partner's webhooks to the receiver beyond the node.
const webhookManifest = `  webhook:
    url: %[2]s
    enabled: true
    secretRef: {name: %[1]s-webhook, key: secret}
`

// system is swaprouter as deployed on the node, and the world around it.
type system struct {
	n     *node.Node
	repo  *clone
	world *outside
}

func (s *system) kubectl(stdin []byte, args ...string) []byte {
	out, err := testenv.Kubectl(s.n.Kubeconfig, stdin, args...)
	Expect(err).NotTo(HaveOccurred(), "kubectl %s: %s", strings.Join(args, " "), out)
	return out
}

// partner declares a partner on tier (with its webhooks sent to the receiver, when asked),
// gives it a key with `swaprouter keys create`, and returns its client of the frontend Service
// once a replica knows the key and both providers quote, and the key.
func (s *system) partner(ctx context.Context, name, tier string, webhook bool) (*partnerapi.Client, string, string) {
	manifest := fmt.Sprintf(partnerManifest, name, tier)
	if webhook {
		secret, err := webhooks.NewSecret()
		Expect(err).NotTo(HaveOccurred())
		s.world.receiver.SetSecret(secret)
		s.kubectl(nil, "-n", namespace, "create", "secret", "generic", name+"-webhook", "--from-literal=secret="+secret)
		manifest += fmt.Sprintf(webhookManifest, name, s.world.receiverURL)
	}
	s.kubectl([]byte(manifest), "-n", namespace, "apply", "-f", "-")
	keyID, keySecret, err := s.repo.createKey(ctx, name)
	Expect(err).NotTo(HaveOccurred())

	// Not partnerapi's client yet: it fails the spec on a refused connection, which is what
	// a replica that is not ready answers.
	api, err := swapclient.NewClientWithResponses(frontendURL, withKey(keyID, keySecret))
	Expect(err).NotTo(HaveOccurred())
	Eventually(func(g Gomega) {
		quote, err := api.RequestQuoteWithResponse(ctx, nil, quoteRequest())
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(quote.JSON200).NotTo(BeNil(), "%d %s", quote.StatusCode(), quote.Body)
		g.Expect(quote.JSON200.Candidates).To(HaveLen(2))
	}).Should(Succeed())
	return partnerapi.New(frontendURL, keyID, keySecret), keyID, keySecret
}

// withKey signs a request with a partner's key.
func withKey(keyID, secret string) swapclient.ClientOption {
	return swapclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Key-Id", keyID)
		r.Header.Set("Authorization", "Bearer "+secret)
		return nil
	})
}

func quoteRequest() swapclient.QuoteRequest {
	dry := true
	return swapclient.QuoteRequest{OriginAsset: partnerapi.ETH, DestinationAsset: partnerapi.SOL, Amount: partnerapi.PointOneETH, Dry: &dry}
}

// refusesListedSender: an order from an address on the list the sanctions Job wrote is
// refused, and nothing is created.
func (s *system) refusesListedSender(api *partnerapi.Client) {
	req := partnerapi.OrderRequest("route_B")
	req.Sender = listedSender
	r, err := api.API.CreateOrderWithResponse(context.Background(), nil, req)
	Expect(err).NotTo(HaveOccurred())
	Expect(r.StatusCode()).To(Equal(http.StatusForbidden), "%s", r.Body)
	Expect(string(r.Body)).To(ContainSubstring("address not allowed"))
}

// order creates an order with the best provider, its deposit not yet made.
func (s *system) order(api *partnerapi.Client) swapclient.Order {
	quote, err := api.API.RequestQuoteWithResponse(context.Background(), nil, quoteRequest())
	Expect(err).NotTo(HaveOccurred())
	Expect(quote.JSON200).NotTo(BeNil(), "%d %s", quote.StatusCode(), quote.Body)
	order := api.CreateOrder(partnerapi.OrderRequest(quote.JSON200.Best.ProviderId), "")
	Expect(order.DepositAddress).NotTo(BeNil())
	return order
}

// settle makes the user's deposit for order on the simulated chain and waits for SUCCESS,
// read through the frontend Service, and for its verified SUCCESS webhook.
func (s *system) settle(api *partnerapi.Client, order swapclient.Order) {
	partnerapi.Deposit(&devenv.Env{SimulatorURL: simulatorURL}, *order.DepositAddress, partnerapi.PointOneETH)
	api.AwaitStatus(order.Id, swapclient.OrderStatusSUCCESS)
	Eventually(func() []string {
		var statuses []string
		for _, ev := range s.world.receiver.EventsFor(order.Id) {
			statuses = append(statuses, string(ev.Status))
		}
		return statuses
	}).Should(ContainElement("SUCCESS"), "the signed SUCCESS webhook of %s", order.Id)
	Expect(s.world.receiver.Rejected()).To(BeZero(), "webhooks whose signature did not verify")
}

// pods are the running Pods of a component of swaprouter (controllers, frontend, app), not
// those a rollout or a deletion is ending.
func (s *system) pods(ctx context.Context, component string) []corev1.Pod {
	list, err := s.n.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{
		LabelSelector: "app.kubernetes.io/name=swaprouter,app.kubernetes.io/component=" + component,
		FieldSelector: "status.phase=Running",
	})
	Expect(err).NotTo(HaveOccurred())
	var running []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			running = append(running, p)
		}
	}
	Expect(running).NotTo(BeEmpty(), "no running %s Pod", component)
	return running
}

// leaseName is the controllers' leader election Lease.
const leaseName = "swaprouter-controllers.swap.swaprouter.dev"

// leader is the name of the Pod holding the controllers' Lease (its holder identity is the
// Pod's hostname and a unique suffix).
func (s *system) leader(ctx context.Context) (string, error) {
	lease, err := s.n.Client.CoordinationV1().Leases(namespace).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if lease.Spec.HolderIdentity == nil {
		return "", nil
	}
	pod, _, _ := strings.Cut(*lease.Spec.HolderIdentity, "_")
	return pod, nil
}

// containerPID is the process (in the node's PID namespace) of a Pod's first container, as
// containerd lists its task.
func (s *system) containerPID(ctx context.Context, pod corev1.Pod) (int, error) {
	id := strings.TrimPrefix(pod.Status.ContainerStatuses[0].ContainerID, "containerd://")
	out, err := s.n.Ctr(ctx, "tasks", "ls")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		// TASK PID STATUS
		if f := strings.Fields(line); len(f) == 3 && f[0] == id {
			return strconv.Atoi(f[1])
		}
	}
	return 0, fmt.Errorf("containerd runs no task %s:\n%s", id, out)
}

// containerStatus is the status of a Pod's first container.
func (s *system) containerStatus(ctx context.Context, g Gomega, pod string) corev1.ContainerStatus {
	p, err := s.n.Client.CoreV1().Pods(namespace).Get(ctx, pod, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(p.Status.ContainerStatuses).NotTo(BeEmpty())
	return p.Status.ContainerStatuses[0]
}

// events are the messages of a Pod's Events with reason.
func (s *system) events(ctx context.Context, pod, reason string) ([]string, error) {
	list, err := s.n.Client.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.name=" + pod + ",reason=" + reason,
	})
	if err != nil {
		return nil, err
	}
	var messages []string
	for _, e := range list.Items {
		messages = append(messages, e.Message)
	}
	return messages, nil
}

// poller reads an order through the frontend Service every 200 ms, each time on a new
// connection, as a partner polling through a rollout does, and keeps every failure.
type poller struct {
	cancel   context.CancelFunc
	done     chan struct{}
	polls    int
	failures []string
}

func pollOrder(ctx context.Context, id, keyID, secret string) (*poller, error) {
	api, err := swapclient.NewClientWithResponses(frontendURL, withKey(keyID, secret), swapclient.WithHTTPClient(&http.Client{
		Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true},
	}))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &poller{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			p.polls++
			r, err := api.GetOrderWithResponse(ctx, id)
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				p.failures = append(p.failures, err.Error())
			case r.StatusCode() != http.StatusOK:
				p.failures = append(p.failures, fmt.Sprintf("%d %s", r.StatusCode(), r.Body))
			}
		}
	}()
	return p, nil
}

// finish stops polling and returns how many polls were made and the failures.
func (p *poller) finish() (int, []string) {
	p.cancel()
	<-p.done
	return p.polls, p.failures
}
