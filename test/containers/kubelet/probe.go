package kubelet

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Probe is where a probe connects: an HTTP GET of URL, or a TCP connect to Addr.
type Probe struct {
	URL, Addr string
}

// ProbeTarget resolves a container's probe against the Pod's IP: named ports through the
// container's ports, the scheme and path of an httpGet.
func ProbeTarget(podIP string, c corev1.Container, p *corev1.Probe) (Probe, error) {
	switch {
	case p.HTTPGet != nil:
		port, err := ContainerPort(c, p.HTTPGet.Port)
		if err != nil {
			return Probe{}, err
		}
		scheme := strings.ToLower(string(p.HTTPGet.Scheme))
		if scheme == "" {
			scheme = "http"
		}
		path := p.HTTPGet.Path
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		return Probe{URL: scheme + "://" + net.JoinHostPort(podIP, strconv.Itoa(port)) + path}, nil
	case p.TCPSocket != nil:
		port, err := ContainerPort(c, p.TCPSocket.Port)
		if err != nil {
			return Probe{}, err
		}
		return Probe{Addr: net.JoinHostPort(podIP, strconv.Itoa(port))}, nil
	}
	return Probe{}, fmt.Errorf("container %s: only httpGet and tcpSocket probes are supported", c.Name)
}

// ContainerPort resolves a port number or a port name of the container.
func ContainerPort(c corev1.Container, port intstr.IntOrString) (int, error) {
	if port.Type == intstr.Int {
		return port.IntValue(), nil
	}
	for _, p := range c.Ports {
		if p.Name == port.StrVal {
			return int(p.ContainerPort), nil
		}
	}
	return 0, fmt.Errorf("container %s has no port named %q", c.Name, port.StrVal)
}
