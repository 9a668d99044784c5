package node

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/net/dns/dnsmessage"
	corev1 "k8s.io/api/core/v1"
)

// Services does for the node what CoreDNS and kube-proxy do in a cluster: it answers
// <service>.<namespace>.svc.cluster.local with the Service's cluster IP, and forwards each
// port of a cluster IP to one of the Service's endpoints, picked at random per connection.
type Services struct {
	net *Network
	dns *net.UDPConn

	mu    sync.Mutex
	names map[string]netip.Addr // FQDN with the final dot → cluster IP
	lns   []net.Listener
}

// ClusterDomain is the DNS suffix of Services.
const ClusterDomain = "cluster.local"

// StartServices serves DNS on the node's address, port 53, where the Pods' resolv.conf
// points.
func StartServices(n *Network) (*Services, error) {
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(n.NodeIP, 53)))
	if err != nil {
		return nil, err
	}
	s := &Services{net: n, dns: conn, names: map[string]netip.Addr{}}
	go s.serveDNS()
	return s, nil
}

// Close stops DNS and every forwarded port.
func (s *Services) Close() {
	_ = s.dns.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ln := range s.lns {
		_ = ln.Close()
	}
}

// Expose serves svc: its name in DNS and each of its ports on its cluster IP, forwarded to
// what endpoints returns for that port (host:port, the ready endpoints at that moment).
func (s *Services) Expose(svc corev1.Service, endpoints func(corev1.ServicePort) []string) error {
	ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
	if err != nil {
		return fmt.Errorf("service %s has no cluster IP: %w", svc.Name, err)
	}
	if err := s.net.AddLocalAddress(ip); err != nil {
		return err
	}
	for _, port := range svc.Spec.Ports {
		ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(int(port.Port))))
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.lns = append(s.lns, ln)
		s.mu.Unlock()
		go forward(ln, func() []string { return endpoints(port) })
	}
	s.mu.Lock()
	s.names[svc.Name+"."+svc.Namespace+".svc."+ClusterDomain+"."] = ip
	s.mu.Unlock()
	return nil
}

func forward(ln net.Listener, endpoints func() []string) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer func() { _ = conn.Close() }()
			eps := endpoints()
			if len(eps) == 0 {
				return // no ready endpoint: the connection is refused by closing it
			}
			up, err := net.Dial("tcp", eps[rand.IntN(len(eps))])
			if err != nil {
				return
			}
			defer func() { _ = up.Close() }()
			done := make(chan struct{})
			go func() {
				_, _ = io.Copy(up, conn)
				if tc, ok := up.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
				close(done)
			}()
			_, _ = io.Copy(conn, up)
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			<-done
		}()
	}
}

func (s *Services) serveDNS() {
	buf := make([]byte, 1500)
	for {
		n, from, err := s.dns.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		if answer, err := s.answer(buf[:n]); err == nil {
			_, _ = s.dns.WriteToUDPAddrPort(answer, from)
		}
	}
}

// answer resolves a query: A records for Service names, no other records for them, and
// NXDOMAIN for every other name (this node has no upstream resolver).
func (s *Services) answer(query []byte) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	ip, known := s.names[strings.ToLower(q.Name.String())]
	s.mu.Unlock()
	rcode := dnsmessage.RCodeSuccess
	if !known {
		rcode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RCode: rcode})
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	if known && q.Type == dnsmessage.TypeA && ip.Is4() {
		if err := b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 5}, dnsmessage.AResource{A: ip.As4()}); err != nil {
			return nil, err
		}
	}
	return b.Finish()
}
