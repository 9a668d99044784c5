// Command provider-sim serves the simulated routing providers (route_A under /route_A,
// route_B under /route_B, relay under /relay, and each --instance under /<its id>), their
// chains (/chain) and the control API (/control).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
)

// faultFlags collects repeated --fault provider/call=latency:250ms,errorRate:0.5,status:500,hang,garbage,badSignature.
type faultFlags []string

func (f *faultFlags) String() string     { return strings.Join(*f, " ") }
func (f *faultFlags) Set(v string) error { *f = append(*f, v); return nil }

// instanceFlags collects repeated --instance id=protocol[,token:T][,feeBps:N].
type instanceFlags []simulator.Instance

func (f *instanceFlags) String() string { return fmt.Sprint(*f) }
func (f *instanceFlags) Set(v string) error {
	in, err := parseInstance(v)
	if err != nil {
		return err
	}
	*f = append(*f, in)
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "provider-sim:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		addr    = flag.String("addr", "127.0.0.1:18080", "listen address")
		step    = flag.Duration("step", simulator.DefaultStepDelay, "time per settlement step (a full deposit settles in 4 steps)")
		refund  = flag.Duration("refund-after", simulator.DefaultRefundDelay, "how long an incomplete deposit waits before it is refunded")
		window  = flag.Duration("deposit-window", simulator.DefaultDepositWindow, "how long after creation a deposit is accepted")
		seed    = flag.Uint64("seed", 1, "seed for addresses, hashes and error rates")
		token   = flag.String("route-a-token", "", "bearer token route_A requires (empty: none)")
		relay   = flag.String("relay-api-key", "", "API key (x-api-key) relay accepts, required for its deposit-address lookup (empty: none)")
		verbose = flag.Bool("v", false, "log every provider call")
		dataDir = flag.String("data-dir", "", "folder that keeps orders and deposits across restarts (empty: memory only)")
		faults  faultFlags
		extra   instanceFlags
	)
	flag.Var(&extra, "instance", "serve one more provider account under /<id>, repeatable: id=protocol[,token:T][,feeBps:N] (protocol oneclick, channel or relay; token: its bearer token or API key; feeBps: its fee instead of the protocol's)")
	flag.Var(&faults, "fault", "inject a fault, repeatable: provider/call=latency:250ms,errorRate:0.5,status:500,hang,garbage,badSignature (call * = all)")
	flag.Parse()

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	sim, err := simulator.Open(simulator.Options{
		StepDelay: *step, RefundDelay: *refund, DepositWindow: *window, Seed: *seed, RouteAToken: *token, RelayAPIKey: *relay, Logger: log,
		DataDir: *dataDir, Instances: extra,
	})
	if err != nil {
		return err
	}
	for _, spec := range faults {
		p, call, f, err := parseFault(spec)
		if err != nil {
			return err
		}
		sim.SetFault(p, call, f)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: sim.Handler(), ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Info("provider simulator listening", "url", "http://"+ln.Addr().String(), "step", *step, "refundAfter", *refund, "depositWindow", *window)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// parseFault reads "route_A/quote=latency:2s,errorRate:0.3,status:502,hang,garbage".
func parseFault(spec string) (swapv1.ProviderID, string, simulator.Fault, error) {
	var f simulator.Fault
	target, opts, ok := strings.Cut(spec, "=")
	p, call, ok2 := strings.Cut(target, "/")
	if !ok || !ok2 || call == "" {
		return "", "", f, fmt.Errorf("--fault %q: want provider/call=option,...", spec)
	}
	for _, opt := range strings.Split(opts, ",") {
		k, v, _ := strings.Cut(opt, ":")
		var err error
		switch k {
		case "latency":
			f.Latency, err = time.ParseDuration(v)
		case "errorRate":
			_, err = fmt.Sscanf(v, "%g", &f.ErrorRate)
		case "status":
			_, err = fmt.Sscanf(v, "%d", &f.Status)
		case "hang":
			f.Hang = true
		case "garbage":
			f.Garbage = true
		case "badSignature":
			f.BadSignature = true
		default:
			err = errors.New("unknown option")
		}
		if err != nil {
			return "", "", f, fmt.Errorf("--fault %q: option %q: %v", spec, opt, err)
		}
	}
	if err := f.Validate(); err != nil {
		return "", "", f, fmt.Errorf("--fault %q: %v", spec, err)
	}
	return swapv1.ProviderID(p), call, f, nil
}

// parseInstance reads "oneclick_b=oneclick,token:jwt-b,feeBps:10".
func parseInstance(spec string) (simulator.Instance, error) {
	id, rest, ok := strings.Cut(spec, "=")
	opts := strings.Split(rest, ",")
	if !ok || id == "" || opts[0] == "" {
		return simulator.Instance{}, fmt.Errorf("--instance %q: want id=protocol[,token:T][,feeBps:N]", spec)
	}
	in := simulator.Instance{ID: swapv1.ProviderID(id), Protocol: swapv1.ProviderProtocol(opts[0])}
	for _, opt := range opts[1:] {
		k, v, _ := strings.Cut(opt, ":")
		switch k {
		case "token":
			in.Token = v
		case "feeBps":
			fee, err := strconv.ParseInt(v, 10, 64)
			if err != nil || fee < 0 || fee >= 10000 {
				return simulator.Instance{}, fmt.Errorf("--instance %q: feeBps %q is not a fee in basis points", spec, v)
			}
			in.FeeBps = &fee
		default:
			return simulator.Instance{}, fmt.Errorf("--instance %q: unknown option %q", spec, opt)
		}
	}
	return in, nil
}
