package archive

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// place creates an order (headers: name, value pairs) and returns its record.
func place(c *partnerapi.Client, body swapclient.OrderRequest, headers ...string) map[string]any {
	GinkgoHelper()
	r := c.Post("/v1/order", body, headers...)
	Expect(r.Status).To(Equal(http.StatusCreated), "%s", r.Raw)
	return r.Body
}

// settle deposits the order's amount and returns the order's record, as the wire carries it,
// once it is SUCCESS.
func settle(c *partnerapi.Client, order map[string]any) map[string]any {
	GinkgoHelper()
	partnerapi.Deposit(env, partnerapi.Str(order, "depositAddress"), partnerapi.Str(order, "amount"))
	id := partnerapi.Str(order, "id")
	c.AwaitStatus(id, swapclient.OrderStatusSUCCESS)
	return c.Get("/v1/order/" + id).Body
}

// inEtcd reports whether order id's SwapOrder still exists.
func inEtcd(id string) bool {
	err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: env.Namespace, Name: orderid.ObjectName(id)}, &swapv1.SwapOrder{})
	Expect(client.IgnoreNotFound(err)).To(Succeed())
	return !apierrors.IsNotFound(err)
}

// awaitLeftEtcd waits until the TTL sweep deleted the order, then checks the archive has it.
func awaitLeftEtcd(partnerName, id string) {
	GinkgoHelper()
	Eventually(inEtcd).WithArguments(id).Should(BeFalse(), "the SwapOrder is deleted after the %v TTL", orderTTL)
	archived, err := env.System.Archive.Get(context.Background(), partnerName, id)
	Expect(err).NotTo(HaveOccurred(), "an order left etcd that PostgreSQL does not hold")
	Expect(archived.Status.Status).To(Equal(swapv1.OrderSuccess))
}

// listAll pages through GET /v1/orders (query without cursor) and returns the orders.
func listAll(c *partnerapi.Client, query string) []map[string]any {
	GinkgoHelper()
	var out []map[string]any
	cursor := ""
	for pages := 0; ; pages++ {
		Expect(pages).To(BeNumerically("<", 100), "the cursor never ends")
		path := "/v1/orders?" + query
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		r := c.Get(path)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Raw)
		for _, o := range partnerapi.List(r.Body, "orders") {
			out = append(out, o.(map[string]any))
		}
		if cursor = partnerapi.Str(r.Body, "nextCursor"); cursor == "" {
			return out
		}
	}
}

func ids(orders []map[string]any) []string {
	out := make([]string, len(orders))
	for i, o := range orders {
		out[i] = partnerapi.Str(o, "id")
	}
	return out
}

var _ = Describe("the order archive", Ordered, func() {
	It("keeps an order that ended readable and listable after its SwapOrder left etcd, and its key and reference taken", func() {
		key := fmt.Sprintf("checkout-%d", time.Now().UnixNano())
		body, reference := partnerapi.OrderRequest("route_A"), "invoice-"+key
		body.ClientReference = &reference
		created := place(partner, body, "Idempotency-Key", key)
		id := partnerapi.Str(created, "id")
		Expect(partnerapi.Str(created, "clientReference")).To(Equal(reference))
		ended := settle(partner, created)

		By("PostgreSQL holds the order and the SwapOrder is deleted after the TTL")
		awaitLeftEtcd("acme", id)

		By("GET /v1/order/{id} answers the same record as while it was live")
		got := partner.Get("/v1/order/" + id)
		Expect(got.Status).To(Equal(http.StatusOK), "%s", got.Raw)
		Expect(got.Body).To(Equal(ended))

		By("GET /v1/orders lists it")
		listed := listAll(partner, "clientReference="+reference)
		Expect(listed).To(HaveLen(1))
		Expect(listed[0]).To(Equal(ended))

		By("the same Idempotency-Key and request answer the archived order, never a new one")
		again := partner.Post("/v1/order", body, "Idempotency-Key", key)
		Expect(again.Status).To(Equal(http.StatusCreated), "%s", again.Raw)
		Expect(again.Body).To(Equal(ended))
		Expect(inEtcd(id)).To(BeFalse(), "a new SwapOrder was created with the archived order's id")
		changed := partnerapi.OrderRequest("route_A")
		changed.Amount = "200000000000000000"
		Expect(partner.Post("/v1/order", changed, "Idempotency-Key", key).Body["error"]).To(Equal("idempotency key reused"))

		By("another order with its clientReference is refused with its id")
		dup := partner.Post("/v1/order", body)
		Expect(dup.Status).To(Equal(http.StatusConflict), "%s", dup.Raw)
		Expect(dup.Body).To(Equal(map[string]any{"error": "clientReference in use",
			"detail": "order " + id + " already has this clientReference", "orderId": id}))
	})

	It("pages one partner's live and archived orders newest first, each once, and never another partner's", func() {
		initech := partnerapi.NewPartner(env, "initech", 600)
		globex := partnerapi.NewPartner(env, "globex", 600)
		var mu sync.Mutex
		var want, globexWant, archived []string
		var wg sync.WaitGroup
		for i := range 7 {
			wg.Go(func() {
				defer GinkgoRecover()
				c, mine := initech, &want
				if i >= 5 {
					c, mine = globex, &globexWant
				}
				o := place(c, partnerapi.OrderRequest("route_B"))
				id := partnerapi.Str(o, "id")
				ends := i%2 == 0 // initech: 3 end, 2 stay live; globex: 1 and 1
				if ends {
					settle(c, o)
				}
				mu.Lock()
				defer mu.Unlock()
				*mine = append(*mine, id)
				if ends && c == initech {
					archived = append(archived, id)
				}
			})
		}
		wg.Wait()
		for _, id := range archived {
			awaitLeftEtcd("initech", id)
		}

		pages := listAll(initech, "limit=2")
		Expect(ids(pages)).To(ConsistOf(want), "each order once, none of globex's")
		for i := 1; i < len(pages); i++ {
			Expect(partnerapi.Str(pages[i-1], "createdAt") >= partnerapi.Str(pages[i], "createdAt")).To(BeTrue(), "newest first")
		}
		Expect(ids(listAll(initech, "limit=2&status=SUCCESS"))).To(ConsistOf(archived))
		Expect(ids(listAll(globex, "limit=1"))).To(ConsistOf(globexWant))
		for _, id := range want {
			Expect(globex.Get("/v1/order/" + id).Status).To(Equal(http.StatusNotFound))
		}
	})

	It("lets operators read live and archived orders with swaprouter orders", func() {
		umbrella := partnerapi.NewPartner(env, "umbrella", 600)
		ended := settle(umbrella, place(umbrella, partnerapi.OrderRequest("route_A")))
		awaitLeftEtcd("umbrella", partnerapi.Str(ended, "id"))
		live := place(umbrella, partnerapi.OrderRequest("route_B"))

		bin := filepath.Join(GinkgoT().TempDir(), "swaprouter")
		build := exec.Command("go", "build", "-o", bin, "./cmd/swaprouter")
		build.Dir = testenv.RepoRoot()
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s", out)
		// As operators run it: with a database user that may only read.
		dsn, err := url.Parse(env.ArchiveDSN)
		Expect(err).NotTo(HaveOccurred())
		readerDSN, err := env.Postgres.CreateReader(context.Background(), strings.TrimPrefix(dsn.Path, "/"), "operator")
		Expect(err).NotTo(HaveOccurred())
		run := func(args ...string) string {
			cmd := exec.Command(bin, append(args, "-n", env.Namespace)...)
			cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Plane.KubeconfigPath, "SWAPROUTER_ARCHIVE_DSN="+readerDSN)
			out, err := cmd.Output()
			Expect(err).NotTo(HaveOccurred(), "swaprouter %v: %s", args, out)
			return string(out)
		}
		for id, source := range map[string]string{partnerapi.Str(ended, "id"): "archived", partnerapi.Str(live, "id"): "live"} {
			var got struct {
				Source string           `json:"source"`
				Order  swapv1.SwapOrder `json:"order"`
			}
			Expect(json.Unmarshal([]byte(run("orders", "get", id)), &got)).To(Succeed())
			Expect(got.Source).To(Equal(source))
			Expect(got.Order.Spec.OrderID).To(Equal(id))
		}
		table := strings.Split(strings.TrimSpace(run("orders", "list", "--partner", "umbrella")), "\n")
		Expect(table).To(HaveLen(3))
		Expect(strings.Fields(table[1])[0]).To(Equal(partnerapi.Str(live, "id")), "newest first")
		Expect(table[1]).To(HaveSuffix("live"))
		Expect(strings.Fields(table[2])).To(HaveExactElements(partnerapi.Str(ended, "id"), "SUCCESS", "route_A",
			partnerapi.Str(ended, "createdAt"), "archived"))
		Expect(strings.Split(strings.TrimSpace(run("orders", "list", "--partner", "umbrella", "--status", "SUCCESS")), "\n")).To(HaveLen(2))
	})

	It("answers 503 for archived orders while PostgreSQL is stopped, serves live ones, and recovers after it restarts", func() {
		ended := settle(partner, place(partner, partnerapi.OrderRequest("route_A")))
		id := partnerapi.Str(ended, "id")
		awaitLeftEtcd("acme", id)
		live := place(partner, partnerapi.OrderRequest("route_B"))

		By("stopping PostgreSQL")
		env.Postgres.Stop()
		DeferCleanup(func(ctx context.Context) {
			select {
			case <-env.Postgres.Done():
				Expect(env.Postgres.Restart(ctx)).To(Succeed())
			default:
			}
		})
		down := partner.Get("/v1/order/" + id)
		Expect(down.Status).To(Equal(http.StatusServiceUnavailable), "%s", down.Raw)
		Expect(down.Header.Get("Content-Type")).To(Equal("application/json"))
		Expect(down.Body).To(HaveKeyWithValue("error", "archive unavailable"))
		Expect(down.Body).To(HaveKey("detail"))
		Expect(down.Body).To(HaveLen(2))
		Expect(partner.Get("/v1/orders").Body).To(HaveKeyWithValue("error", "archive unavailable"))
		Expect(partner.Get("/v1/order/"+partnerapi.Str(live, "id")).Status).To(Equal(http.StatusOK), "live orders are unaffected")
		Expect(partner.Post("/v1/order", partnerapi.OrderRequest("route_B")).Status).To(Equal(http.StatusCreated),
			"an order without a key or reference is created")

		By("restarting PostgreSQL")
		Expect(env.Postgres.Restart(context.Background())).To(Succeed())
		Eventually(func() map[string]any { return partner.Get("/v1/order/" + id).Body }).Should(Equal(ended))
	})
})
