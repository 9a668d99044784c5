package netguard

import (
	"fmt"
	"net/netip"
	"testing"
)

// TestCheckAddrFollowsTheSpecialPurposeRegistries walks the IANA IPv4 and IPv6
// Special-Purpose Address Registries (RFC 6890 and its updates, the entries as published in
// 2024: https://www.iana.org/assignments/iana-ipv4-special-registry and
// https://www.iana.org/assignments/iana-ipv6-special-registry) plus the multicast and
// deprecated site-local blocks. A block the registry marks not globally reachable is refused;
// so are the few global anycast and AS112 services inside a larger refused block (no webhook
// receiver lives there). Blocks that only embed an IPv4 address are judged by that address
// (TestCheckAddrJudgesEmbeddedIPv4).
func TestCheckAddrFollowsTheSpecialPurposeRegistries(t *testing.T) {
	for _, tc := range []struct {
		block, sample string
		allowed       bool
	}{
		// IPv4
		{"0.0.0.0/8 this network", "0.1.2.3", false},
		{"0.0.0.0/32 this host", "0.0.0.0", false},
		{"10.0.0.0/8 private-use", "10.20.30.40", false},
		{"100.64.0.0/10 shared address space", "100.100.0.1", false},
		{"127.0.0.0/8 loopback", "127.0.0.53", false},
		{"169.254.0.0/16 link local", "169.254.169.254", false},
		{"172.16.0.0/12 private-use", "172.20.0.1", false},
		{"192.0.0.0/24 IETF protocol assignments", "192.0.0.100", false},
		{"192.0.0.0/29 IPv4 service continuity", "192.0.0.1", false},
		{"192.0.0.8/32 IPv4 dummy address", "192.0.0.8", false},
		{"192.0.0.9/32 PCP anycast (inside 192.0.0.0/24)", "192.0.0.9", false},
		{"192.0.0.10/32 TURN anycast (inside 192.0.0.0/24)", "192.0.0.10", false},
		{"192.0.0.170/32 NAT64/DNS64 discovery", "192.0.0.170", false},
		{"192.0.0.171/32 NAT64/DNS64 discovery", "192.0.0.171", false},
		{"192.0.2.0/24 documentation TEST-NET-1", "192.0.2.1", false},
		{"192.31.196.0/24 AS112-v4 (global)", "192.31.196.1", true},
		{"192.52.193.0/24 AMT (global)", "192.52.193.1", true},
		{"192.88.99.0/24 deprecated 6to4 relay anycast", "192.88.99.1", false},
		{"192.168.0.0/16 private-use", "192.168.0.1", false},
		{"192.175.48.0/24 direct delegation AS112 (global)", "192.175.48.1", true},
		{"198.18.0.0/15 benchmarking", "198.19.255.1", false},
		{"198.51.100.0/24 documentation TEST-NET-2", "198.51.100.1", false},
		{"203.0.113.0/24 documentation TEST-NET-3", "203.0.113.1", false},
		{"224.0.0.0/4 multicast", "233.252.0.1", false},
		{"240.0.0.0/4 reserved", "250.1.2.3", false},
		{"255.255.255.255/32 limited broadcast", "255.255.255.255", false},
		{"public", "8.8.4.4", true},
		// IPv6
		{"::1/128 loopback", "::1", false},
		{"::/128 unspecified", "::", false},
		{"::/96 IPv4-compatible (deprecated)", "::808:808", false},
		{"64:ff9b:1::/48 local-use IPv4/IPv6 translation", "64:ff9b:1::808:808", false},
		{"100::/64 discard-only", "100::1", false},
		{"100:0:0:1::/64 dummy IPv6 prefix", "100:0:0:1::1", false},
		{"2001::/23 IETF protocol assignments", "2001:1ff::1", false},
		{"2001::/32 Teredo", "2001:0:808:808::1", false},
		{"2001:1::1/128 PCP anycast", "2001:1::1", false},
		{"2001:1::2/128 TURN anycast", "2001:1::2", false},
		{"2001:1::3/128 DNS-SD SRP anycast", "2001:1::3", false},
		{"2001:2::/48 benchmarking", "2001:2::1", false},
		{"2001:3::/32 AMT (inside 2001::/23)", "2001:3::1", false},
		{"2001:4:112::/48 AS112-v6 (inside 2001::/23)", "2001:4:112::1", false},
		{"2001:10::/28 deprecated ORCHID", "2001:10::1", false},
		{"2001:20::/28 ORCHIDv2 (inside 2001::/23)", "2001:20::1", false},
		{"2001:30::/28 drone remote ID DETs (inside 2001::/23)", "2001:30::1", false},
		{"2001:db8::/32 documentation", "2001:db8:1::1", false},
		{"2620:4f:8000::/48 direct delegation AS112 (global)", "2620:4f:8000::1", true},
		{"3fff::/20 documentation", "3fff:123::1", false},
		{"5f00::/16 segment routing SIDs", "5f00:1::1", false},
		{"fc00::/7 unique-local", "fdab::1", false},
		{"fe80::/10 link-local", "febf::1", false},
		{"fec0::/10 site-local (deprecated)", "fec0::1", false},
		{"ff00::/8 multicast", "ff05::2", false},
		{"public", "2a00:1450:4001:80b::200e", true},
	} {
		err := CheckAddr(netip.MustParseAddr(tc.sample), Options{})
		if (err == nil) != tc.allowed {
			t.Errorf("%s: CheckAddr(%s) = %v, want allowed=%v", tc.block, tc.sample, err, tc.allowed)
		}
	}
}

// TestCheckAddrJudgesEmbeddedIPv4: every IPv6 form that maps, translates or embeds an IPv4
// address is refused when that address is; the forms a partner's public endpoint could
// legitimately have (mapped, translated, NAT64, 6to4) pass with a public one.
func TestCheckAddrJudgesEmbeddedIPv4(t *testing.T) {
	forms := []struct {
		name          string
		embed         func(v4 [4]byte) string
		publicAllowed bool
	}{
		{"IPv4-mapped ::ffff:0:0/96", func(b [4]byte) string { return fmt.Sprintf("::ffff:%d.%d.%d.%d", b[0], b[1], b[2], b[3]) }, true},
		{"IPv4-translated ::ffff:0:0:0/96", func(b [4]byte) string { return fmt.Sprintf("::ffff:0:%d.%d.%d.%d", b[0], b[1], b[2], b[3]) }, true},
		{"NAT64 64:ff9b::/96", func(b [4]byte) string { return fmt.Sprintf("64:ff9b::%d.%d.%d.%d", b[0], b[1], b[2], b[3]) }, true},
		{"local-use NAT64 64:ff9b:1::/48", func(b [4]byte) string { return fmt.Sprintf("64:ff9b:1::%d.%d.%d.%d", b[0], b[1], b[2], b[3]) }, false},
		{"6to4 2002::/16", func(b [4]byte) string { return fmt.Sprintf("2002:%02x%02x:%02x%02x::1", b[0], b[1], b[2], b[3]) }, true},
		{"Teredo server 2001::/32", func(b [4]byte) string { return fmt.Sprintf("2001:0:%02x%02x:%02x%02x::1", b[0], b[1], b[2], b[3]) }, false},
		{"Teredo client 2001::/32", func(b [4]byte) string {
			return fmt.Sprintf("2001:0:808:808:0:0:%02x%02x:%02x%02x", ^b[0], ^b[1], ^b[2], ^b[3])
		}, false},
		{"IPv4-compatible ::/96", func(b [4]byte) string { return fmt.Sprintf("::%d.%d.%d.%d", b[0], b[1], b[2], b[3]) }, false},
	}
	blocked := []string{"127.0.0.1", "10.1.2.3", "169.254.169.254", "192.168.1.1", "100.64.0.1",
		"172.16.0.1", "0.0.0.0", "224.0.0.251", "255.255.255.255", "192.0.0.170"}
	for _, f := range forms {
		for _, v4 := range blocked {
			addr := netip.MustParseAddr(f.embed(netip.MustParseAddr(v4).As4()))
			for _, opts := range []Options{{}, {AllowLoopback: true}} {
				if v4 == "127.0.0.1" && opts.AllowLoopback && f.name == "IPv4-mapped ::ffff:0:0/96" {
					continue // ::ffff:127.0.0.1 is 127.0.0.1, which AllowLoopback admits
				}
				if err := CheckAddr(addr, opts); err == nil {
					t.Errorf("%s of %s (%s, %+v) allowed", f.name, v4, addr, opts)
				}
			}
		}
		public := netip.MustParseAddr(f.embed([4]byte{8, 8, 8, 8}))
		if err := CheckAddr(public, Options{}); (err == nil) != f.publicAllowed {
			t.Errorf("%s of 8.8.8.8 (%s): %v, want allowed=%v", f.name, public, err, f.publicAllowed)
		}
	}
}
