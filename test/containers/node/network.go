// Package node is a small node for Pods run as containers: a network namespace of its own
// with a bridge, a network namespace per Pod (a sandbox, as a pause container holds one), runc
// for the containers, a DNS server for Service names and a proxy for Service addresses.
package node

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// inOwnNetwork marks the copy of the test binary that runs in its own network namespace.
const inOwnNetwork = "SWAPROUTER_NODE_NETNS"

// Unavailable says why this machine cannot run the node (not root, no runc, no ip), or "".
func Unavailable() string {
	if os.Geteuid() != 0 {
		return "runs containers with runc and creates network namespaces, which needs root"
	}
	for _, bin := range []string{"runc", "ip", "nsenter"} {
		if _, err := exec.LookPath(bin); err != nil {
			return bin + " is not installed (make tools installs it)"
		}
	}
	return ""
}

// RunInOwnNetwork runs this test binary again in a network namespace of its own (and a
// mount namespace, so the containers' root file system mounts end with it) and returns its
// exit code, or returns ok in that copy, once its loopback is up. Every fixed port of the
// Pods, and the servers they reach, are then this binary's alone: suites running beside it
// on the machine's loopback cannot collide with them, and nothing leaves the namespace.
func RunInOwnNetwork() (code int, ok bool, err error) {
	if os.Getenv(inOwnNetwork) == "1" {
		if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			return 0, true, fmt.Errorf("make / private: %w", err)
		}
		return 0, true, run("ip", "link", "set", "lo", "up")
	}
	cmd := exec.Command("/proc/self/exe", os.Args[1:]...)
	cmd.Env = append(os.Environ(), inOwnNetwork+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET | syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), false, nil
	}
	if err != nil {
		return 1, false, err
	}
	return 0, false, nil
}

// Network is the node's side of the Pod network: a bridge holding the node's address, to
// which every Pod's veth is attached, in the node's (the test's) network namespace.
type Network struct {
	NodeIP netip.Addr
	prefix netip.Prefix
	next   netip.Addr
	veths  int
}

const bridge = "cbr0"

// NewNetwork creates the bridge with the node's address, the first of podCIDR.
func NewNetwork(podCIDR string) (*Network, error) {
	prefix, err := netip.ParsePrefix(podCIDR)
	if err != nil {
		return nil, err
	}
	nodeIP := prefix.Addr().Next()
	n := &Network{NodeIP: nodeIP, prefix: prefix, next: nodeIP.Next()}
	for _, args := range [][]string{
		{"link", "add", bridge, "type", "bridge"},
		{"addr", "add", netip.PrefixFrom(nodeIP, prefix.Bits()).String(), "dev", bridge},
		{"link", "set", bridge, "up"},
	} {
		if err := run("ip", args...); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// AddLocalAddress makes addr one of the node's own (a Service's cluster IP, the address of a
// server the Pods reach), so Pods routed through the node reach whatever listens on it.
func (n *Network) AddLocalAddress(addr netip.Addr) error {
	return run("ip", "addr", "add", netip.PrefixFrom(addr, addr.BitLen()).String(), "dev", "lo")
}

// attach gives the network namespace of process pid an eth0 on the bridge with the next
// free address of the Pod CIDR and a default route through the node, and returns the address.
func (n *Network) attach(pid int) (netip.Addr, error) {
	ip := n.next
	if !n.prefix.Contains(ip) {
		return netip.Addr{}, fmt.Errorf("pod CIDR %s exhausted", n.prefix)
	}
	n.next = ip.Next()
	n.veths++
	host := "veth" + strconv.Itoa(n.veths)
	ns := "--net=/proc/" + strconv.Itoa(pid) + "/ns/net"
	for _, cmd := range [][]string{
		{"ip", "link", "add", host, "type", "veth", "peer", "name", "eth0", "netns", strconv.Itoa(pid)},
		{"ip", "link", "set", host, "master", bridge, "up"},
		{"nsenter", ns, "ip", "link", "set", "lo", "up"},
		{"nsenter", ns, "ip", "addr", "add", netip.PrefixFrom(ip, n.prefix.Bits()).String(), "dev", "eth0"},
		{"nsenter", ns, "ip", "link", "set", "eth0", "up"},
		{"nsenter", ns, "ip", "route", "add", "default", "via", n.NodeIP.String()},
	} {
		if err := run(cmd[0], cmd[1:]...); err != nil {
			return netip.Addr{}, err
		}
	}
	return ip, nil
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, out)
	}
	return nil
}
