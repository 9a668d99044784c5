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
