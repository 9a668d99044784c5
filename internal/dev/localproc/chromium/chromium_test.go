package chromium

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStartServesDevToolsOnLoopbackAndStops(t *testing.T) {
	if _, err := os.Stat(Path); err != nil {
		t.Skipf("%s is not installed (make tools installs it)", Path)
	}
	dir := t.TempDir()
	b, err := Start(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.DevToolsURL(), "http://127.0.0.1:") {
		t.Errorf("DevToolsURL = %s, want loopback", b.DevToolsURL())
	}
	resp, err := http.Get(b.DevToolsURL() + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Browser, WebSocketDebuggerURL string }
	err = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if err != nil || !strings.Contains(v.Browser, "Chrom") || !strings.HasPrefix(v.WebSocketDebuggerURL, "ws://127.0.0.1:") {
		t.Fatalf("/json/version = %+v (%v), want a Chromium with a loopback websocket", v, err)
	}
	b.Stop()
	// Chromium's helpers (zygote, renderers) carry the profile folder on their command line.
	if left := processesMentioning(dir); len(left) > 0 {
		t.Errorf("processes left after Stop: %v", left)
	}
}

func processesMentioning(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
