// Package containers runs the images `make image` builds as containers, with runc, from the
// Pod specs that kustomize renders from config/: each container set up as a kubelet sets it
// up (command, env, user, read-only root, capabilities, seccomp, memory limit, volumes, the
// ServiceAccount token), in Pods on a bridge network of a network namespace of the test's
// own, with Service names and addresses. Then it checks the probes, the partner journey,
// the swap page and a SIGTERM of every container.
package containers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/swaprouter/swaprouter/test/containers/node"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// unavailable says why this machine cannot run the test ("" when it can).
var unavailable string

func TestMain(m *testing.M) {
	if unavailable = node.Unavailable(); unavailable != "" {
		os.Exit(m.Run())
	}
	code, inside, err := node.RunInOwnNetwork()
	if err != nil {
		fmt.Fprintln(os.Stderr, "containers:", err)
		os.Exit(1)
	}
	if !inside {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func TestContainers(t *testing.T) {
	if unavailable != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("cannot run the containers: %s", unavailable)
		}
		t.Skipf("cannot run the containers: %s", unavailable)
	}
	g := NewWithT(t)
	SetDefaultEventuallyTimeout(3 * time.Minute)
	SetDefaultEventuallyPollingInterval(200 * time.Millisecond)
	c := startCluster(t, g)

	t.Run("every probe passes on its container port", func(t *testing.T) {
		g := NewWithT(t)
		for _, pod := range c.allPods() {
			for _, ctr := range pod.Object.Spec.Containers {
				for kind, probe := range map[string]*corev1.Probe{"liveness": ctr.LivenessProbe, "readiness": ctr.ReadinessProbe} {
					if probe == nil {
						continue
					}
					g.Eventually(func() error {
						if err := c.exited(pod, ctr.Name); err != nil {
							return StopTrying(err.Error())
						}
						return node.ProbeOnce(pod.IP.String(), ctr, probe)
					}).Should(Succeed(), "%s probe of %s/%s", kind, pod.Object.Name, ctr.Name)
				}
			}
		}
	})

	t.Run("every container runs as its Pod spec says", func(t *testing.T) {
		g := NewWithT(t)
		for _, pod := range c.allPods() {
			for _, ctr := range pod.Object.Spec.Containers {
				pid, err := pod.Containers[ctr.Name].Pid()
				g.Expect(err).NotTo(HaveOccurred())
				status := procStatus(g, pid)
				name := pod.Object.Name + "/" + ctr.Name
				g.Expect(status["Uid"]).To(Equal("65532\t65532\t65532\t65532"), "%s: the image's non-root user", name)
				g.Expect(status["CapEff"]).To(Equal("0000000000000000"), "%s: capabilities drop ALL", name)
				g.Expect(status["CapBnd"]).To(Equal("0000000000000000"), "%s: capabilities drop ALL", name)
				g.Expect(status["NoNewPrivs"]).To(Equal("1"), "%s: allowPrivilegeEscalation: false", name)
				g.Expect(status["Seccomp"]).To(Equal("2"), "%s: seccomp RuntimeDefault filters syscalls", name)
				g.Expect(rootMountOptions(g, pid)).To(ContainElement("ro"), "%s: readOnlyRootFilesystem", name)
				limit, err := os.ReadFile(filepath.Join("/sys/fs/cgroup/memory", c.node.CgroupParent, pod.Containers[ctr.Name].ID, "memory.limit_in_bytes"))
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(strings.TrimSpace(string(limit))).To(Equal(strconv.FormatInt(ctr.Resources.Limits.Memory().Value(), 10)), "%s: memory limit", name)
			}
		}
	})

	t.Run("partner journey through the frontend Service", func(t *testing.T) {
		RegisterTestingT(t)
		c.partnerJourney(c.awaitFrontend())
	})

	t.Run("swap page through the app Service", func(t *testing.T) {
		c.swapPage(NewWithT(t))
	})

	t.Run("SIGTERM ends every container within its grace period and loses no order", func(t *testing.T) {
		RegisterTestingT(t)
		g := NewWithT(t)
		api := c.awaitFrontend()
		order := api.CreateOrder(partnerapi.OrderRequest("route_A"), "")
		id := order.Id
		g.Expect(order.DepositAddress).NotTo(BeNil())
		partnerapi.Deposit(c.simulator(), *order.DepositAddress, partnerapi.PointOneETH)

		// A rollout: every swaprouter Pod deleted, each container sent SIGTERM, then new Pods.
		ctx := context.Background()
		c.terminate(g, func(deployment string) bool { return deployment != simulatorDeployment })
		c.runDeployments(ctx, g, "b", func(deployment string) bool { return deployment != simulatorDeployment })

		api = c.awaitFrontend()
		api.AwaitStatus(id, "SUCCESS")
		g.Eventually(func() []string { return statuses(c, id) }).Should(ContainElement("SUCCESS"), "the signed SUCCESS webhook")
		// The simulator last: it holds the providers' side of the order, as a provider would.
		c.terminate(g, func(deployment string) bool { return deployment == simulatorDeployment })
	})
}

// terminate deletes the Pods of the Deployments picked, as the kubelet ends them, and
// expects each container to exit by itself, with status 0, within its grace period.
func (c *cluster) terminate(g *WithT, pick func(deployment string) bool) {
	for name, pods := range c.pods {
		if !pick(name) {
			continue
		}
		for _, pod := range pods {
			for _, r := range pod.Terminate(context.Background()) {
				g.Expect(r.Killed).To(BeFalse(), "%s/%s still ran terminationGracePeriodSeconds after SIGTERM", pod.Object.Name, r.Container)
				g.Expect(r.ExitCode).To(BeZero(), "%s/%s exit code after SIGTERM\n%s", pod.Object.Name, r.Container, tail(pod.LogPath(r.Container)))
			}
		}
		delete(c.pods, name)
	}
}

// exited is an error naming the container and its output's end once it has exited.
func (c *cluster) exited(pod *node.Pod, container string) error {
	select {
	case <-pod.Containers[container].Exited():
		return fmt.Errorf("%s/%s exited with code %d:\n%s", pod.Object.Name, container, pod.Containers[container].ExitCode(), tail(pod.LogPath(container)))
	default:
		return nil
	}
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return strings.TrimSpace(string(b))
}

// procStatus reads /proc/<pid>/status as field → value.
func procStatus(g *WithT, pid int) map[string]string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	g.Expect(err).NotTo(HaveOccurred())
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// rootMountOptions are the mount options of the process's root file system.
func rootMountOptions(g *WithT, pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", pid))
	g.Expect(err).NotTo(HaveOccurred())
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 5 && f[4] == "/" {
			return strings.Split(f[5], ",")
		}
	}
	return nil
}
