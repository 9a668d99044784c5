// Package chromium runs a headless Chromium (Debian's chromium package) through localproc for
// the browser suites: DevTools on a loopback port, a fresh profile in the data folder, stopped
// with the suite. chromedp attaches to it with its remote allocator.
package chromium

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/localproc"
)

// Path is where Debian's package installs the browser (make tools installs it).
const Path = "/usr/bin/chromium"

// flags follow Puppeteer's (and chromedp's) defaults for an automated browser: no first-run
// screens, no background networking (the phone-home connections are refused here anyway),
// no throttling of background tabs (a suite drives several at once), /tmp instead of a
// small container /dev/shm, sRGB so screenshots look the same everywhere.
var flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
	"--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows", "--disable-renderer-backgrounding",
	"--disable-breakpad", "--disable-client-side-phishing-detection", "--disable-default-apps", "--disable-extensions",
	"--disable-features=Translate", "--disable-hang-monitor", "--disable-ipc-flooding-protection",
	"--disable-popup-blocking", "--disable-prompt-on-repost", "--disable-dev-shm-usage",
	"--force-color-profile=srgb", "--metrics-recording-only", "--password-store=basic", "--use-mock-keychain",
	"--enable-automation",
}

// Browser is a running Chromium.
type Browser struct {
	*localproc.Proc
}

// Start runs Chromium with its profile under dataDir and returns once DevTools answers. It
// stops when ctx ends or Stop is called.
func Start(ctx context.Context, dataDir string, log io.Writer) (*Browser, error) {
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	p, err := localproc.Start(ctx, localproc.Spec{
		Name:    "chromium",
		DataDir: dir,
		Log:     log,
		Command: func(port int) (string, []string) {
			return Path, append(flags[:len(flags):len(flags)],
				"--remote-debugging-address=127.0.0.1", "--remote-debugging-port="+strconv.Itoa(port),
				"--user-data-dir="+filepath.Join(dir, "profile"), "about:blank")
		},
		Ready: devToolsReady,
	})
	if err != nil {
		return nil, fmt.Errorf("%w (make tools installs Debian's chromium)", err)
	}
	return &Browser{Proc: p}, nil
}

// DevToolsURL is what chromedp's remote allocator attaches to.
func (b *Browser) DevToolsURL() string { return "http://" + b.Addr }

// devToolsReady reports nil once DevTools describes the browser.
func devToolsReady(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/json/version", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /json/version: %s", resp.Status)
	}
	return nil
}
