package fault

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

var ok = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{}`)) })

func serve(in *Injector, call string, ctx context.Context) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/", nil).WithContext(ctx)
	in.Wrap("route_A", call, ok).ServeHTTP(rec, req)
	return rec
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name       string
		set        Fault
		setCall    string
		call       string
		wantStatus int
		wantBody   string
	}{
		{name: "healthy", call: "quote", wantStatus: 200, wantBody: "{}"},
		{name: "always 500", set: Fault{ErrorRate: 1, Status: 500}, setCall: "quote", call: "quote", wantStatus: 500},
		{name: "default 503", set: Fault{ErrorRate: 1}, setCall: "quote", call: "quote", wantStatus: 503},
		{name: "other call unaffected", set: Fault{ErrorRate: 1}, setCall: "quote", call: "status", wantStatus: 200, wantBody: "{}"},
		{name: "provider-wide", set: Fault{ErrorRate: 1, Status: 502}, setCall: AnyCall, call: "status", wantStatus: 502},
		{name: "garbage", set: Fault{Garbage: true}, setCall: "quote", call: "quote", wantStatus: 200, wantBody: `{"quote": [unterminated`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := NewInjector(1)
			if tt.setCall != "" {
				in.Set("route_A", tt.setCall, tt.set)
			}
			rec := serve(in, tt.call, context.Background())
			if rec.Code != tt.wantStatus {
				t.Fatalf("status %d; want %d", rec.Code, tt.wantStatus)
			}
			if tt.wantBody != "" && rec.Body.String() != tt.wantBody {
				t.Fatalf("body %q; want %q", rec.Body, tt.wantBody)
			}
		})
	}
}

// A hang and an hour of latency both end when the request does (serve would not return
// otherwise), without answering.
func TestHangAndLatencyEndWithTheRequest(t *testing.T) {
	in := NewInjector(1)
	in.Set("route_A", "quote", Fault{Hang: true})
	in.Set("route_A", "status", Fault{Latency: time.Hour})
	for _, call := range []string{"quote", "status"} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		rec := serve(in, call, ctx)
		cancel()
		if rec.Body.Len() != 0 {
			t.Fatalf("%s: body %q after the request ended", call, rec.Body)
		}
	}
}

func TestErrorRateIsSeeded(t *testing.T) {
	count := func() int {
		in := NewInjector(42)
		in.Set("route_A", "quote", Fault{ErrorRate: 0.5})
		n := 0
		for range 200 {
			if serve(in, "quote", context.Background()).Code != 200 {
				n++
			}
		}
		return n
	}
	a, b := count(), count()
	if a != b || a < 60 || a > 140 {
		t.Fatalf("failures %d and %d; want equal and near 100", a, b)
	}
}

func TestFaultJSON(t *testing.T) {
	var f Fault
	if err := json.Unmarshal([]byte(`{"latency":"250ms","errorRate":0.5,"status":500}`), &f); err != nil {
		t.Fatal(err)
	}
	if f.Latency != 250*time.Millisecond || f.ErrorRate != 0.5 || f.Status != 500 {
		t.Fatalf("%+v", f)
	}
	b, _ := json.Marshal(f)
	if string(b) != `{"latency":"250ms","errorRate":0.5,"status":500}` {
		t.Fatalf("marshal = %s", b)
	}
	var forged Fault
	if err := json.Unmarshal([]byte(`{"badSignature":true}`), &forged); err != nil || forged != (Fault{BadSignature: true}) {
		t.Fatalf("badSignature: %+v %v", forged, err)
	}
	if b, _ := json.Marshal(forged); string(b) != `{"badSignature":true}` {
		t.Fatalf("marshal = %s", b)
	}
	for _, bad := range []string{`{"latency":"soon"}`, `{"errorRate":2}`, `{"status":200}`, `{"latency":"-1s"}`} {
		if err := json.Unmarshal([]byte(bad), &f); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	in := NewInjector(1)
	in.Set("route_A", "quote", Fault{Hang: true})
	in.Set("route_A", "quote", Fault{})
	if len(in.All()) != 0 {
		t.Fatal("zero Fault did not remove")
	}
	in.Set("route_B", AnyCall, Fault{Hang: true})
	in.Clear()
	if len(in.All()) != 0 {
		t.Fatal("Clear left faults")
	}
}
