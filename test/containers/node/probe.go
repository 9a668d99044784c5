package node

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/swaprouter/swaprouter/test/containers/kubelet"
)

// ProbeOnce runs a container's probe against the Pod's IP as the kubelet's prober does: an
// HTTP GET passes with a status in [200, 400) (HTTPS certificates unverified), a TCP socket
// probe when the connection opens; within the probe's timeoutSeconds.
func ProbeOnce(podIP string, c corev1.Container, p *corev1.Probe) error {
	target, err := kubelet.ProbeTarget(podIP, c, p)
	if err != nil {
		return err
	}
	timeout := time.Duration(max(p.TimeoutSeconds, 1)) * time.Second
	if target.Addr != "" {
		conn, err := net.DialTimeout("tcp", target.Addr, timeout)
		if err != nil {
			return err
		}
		return conn.Close()
	}
	client := &http.Client{
		Timeout:   timeout,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true},
	}
	resp, err := client.Get(target.URL)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		return fmt.Errorf("%s: %d", target.URL, resp.StatusCode)
	}
	return nil
}
