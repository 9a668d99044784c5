package main

import (
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
)

func TestParseFault(t *testing.T) {
	tests := []struct {
		spec    string
		want    simulator.Fault
		call    string
		wantErr bool
	}{
		{spec: "route_A/quote=latency:2s,errorRate:0.5,status:502", call: "quote", want: simulator.Fault{Latency: 2 * time.Second, ErrorRate: 0.5, Status: 502}},
		{spec: "route_B/*=hang", call: "*", want: simulator.Fault{Hang: true}},
		{spec: "route_B/status=garbage", call: "status", want: simulator.Fault{Garbage: true}},
		{spec: "route_A/quote=badSignature", call: "quote", want: simulator.Fault{BadSignature: true}},
		{spec: "route_A=hang", wantErr: true},
		{spec: "route_A/quote=sometimes", wantErr: true},
		{spec: "route_A/quote=errorRate:7", wantErr: true},
	}
	for _, tt := range tests {
		_, call, f, err := parseFault(tt.spec)
		if (err != nil) != tt.wantErr || (!tt.wantErr && (f != tt.want || call != tt.call)) {
			t.Errorf("parseFault(%q) = %q %+v %v", tt.spec, call, f, err)
		}
	}
}

func TestParseInstance(t *testing.T) {
	fee := int64(10)
	zero := int64(0)
	tests := []struct {
		spec    string
		want    simulator.Instance
		wantErr bool
	}{
		{spec: "oneclick_b=oneclick,token:jwt-b,feeBps:10", want: simulator.Instance{ID: "oneclick_b", Protocol: "oneclick", Token: "jwt-b", FeeBps: &fee}},
		{spec: "cf-staging=channel", want: simulator.Instance{ID: "cf-staging", Protocol: "channel"}},
		{spec: "free=relay,feeBps:0", want: simulator.Instance{ID: "free", Protocol: "relay", FeeBps: &zero}},
		{spec: "oneclick_b", wantErr: true},
		{spec: "oneclick_b=", wantErr: true},
		{spec: "oneclick_b=oneclick,feeBps:lots", wantErr: true},
		{spec: "oneclick_b=oneclick,feeBps:10000", wantErr: true},
		{spec: "oneclick_b=oneclick,colour:blue", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseInstance(tt.spec)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseInstance(%q) error = %v", tt.spec, err)
			continue
		}
		if tt.wantErr {
			continue
		}
		sameFee := (got.FeeBps == nil) == (tt.want.FeeBps == nil) && (got.FeeBps == nil || *got.FeeBps == *tt.want.FeeBps)
		if got.ID != tt.want.ID || got.Protocol != tt.want.Protocol || got.Token != tt.want.Token || !sameFee {
			t.Errorf("parseInstance(%q) = %+v", tt.spec, got)
		}
	}
}
