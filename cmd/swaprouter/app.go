package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/swaprouter/swaprouter/internal/consumerapp"
)

func newAppCommand() *cobra.Command {
	var addr, metricsAddr, keyDir string
	var trusted []string
	var opts consumerapp.Options
	cmd := &cobra.Command{
		Use:   "app",
		Short: "Serve the consumer swap page and its same-origin backend (a /v1 client holding a partner key)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// Read again while serving, so a rotated key's Secret takes effect with no restart.
			keys, err := consumerapp.WatchKeyDir(ctx, keyDir, consumerapp.DefaultKeyRereadInterval, ctrl.Log.WithName("app"))
			if err != nil {
				return err
			}
			opts.Key = keys
			for _, cidr := range trusted {
				pfx, err := netip.ParsePrefix(cidr)
				if err != nil {
					return fmt.Errorf("--trusted-proxies: %w", err)
				}
				opts.TrustedProxies = append(opts.TrustedProxies, pfx)
			}
			opts.Log = ctrl.Log.WithName("app")
			reg := prometheus.NewRegistry()
			reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			opts.Metrics = reg
			app, err := consumerapp.New(opts)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			if metricsAddr != "" {
				mln, err := net.Listen("tcp", metricsAddr)
				if err != nil {
					return err
				}
				// Its own port: the page's port is public, the metrics are for the operator.
				msrv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
				go func() { _ = msrv.Serve(mln) }()
				defer msrv.Close()
				fmt.Fprintf(cmd.OutOrStdout(), "Metrics on http://%s/metrics\n", mln.Addr())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Swap app on http://%s (calls %s)\n", ln.Addr(), opts.APIURL)
			return app.Serve(ctx, ln)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&addr, "listen-address", "127.0.0.1:8088", "address of the page and its /api")
	fs.StringVar(&opts.APIURL, "api-url", "http://127.0.0.1:8080", "base URL of the /v1 frontend")
	fs.StringVar(&metricsAddr, "metrics-bind-address", "127.0.0.1:9092", "address of the Prometheus metrics endpoint (empty disables)")
	fs.StringVar(&keyDir, "partner-key-dir", "/etc/swaprouter-app", "folder holding the partner key as files keyId and secret (a mounted Secret; read again every 30s, so a rotated key needs no restart)")
	fs.IntVar(&opts.PerSession, "per-session-per-minute", consumerapp.DefaultPerSession, "requests each end user's session may make per minute")
	fs.IntVar(&opts.PerClientAddress, "per-client-address-per-minute", consumerapp.DefaultPerClientAddress, "requests each client address (an IPv6 /64) may make per minute, all its sessions together")
	fs.StringSliceVar(&trusted, "trusted-proxies", nil, "CIDRs of the reverse proxies (the ingress) whose X-Forwarded-For and X-Forwarded-Proto name the client's address and scheme")
	fs.IntVar(&opts.StreamsPerSession, "streams-per-session", consumerapp.DefaultStreamsPerSession, "live status streams one session may hold open")
	fs.IntVar(&opts.StreamsPerOrder, "streams-per-order", consumerapp.DefaultStreamsPerOrder, "live status streams open on one order, all sessions together")
	fs.StringVar(&opts.SimulatorURL, "simulator-url", "", "provider simulator URL; enables the page's \"Simulate deposit\" (dev only)")
	fs.BoolVar(&opts.ExplorerLinks, "explorer-links", false, "link transactions to the chains' public explorers (only with real providers: simulated transactions have none)")
	return cmd
}
