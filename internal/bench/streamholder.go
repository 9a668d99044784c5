package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	swapclient "github.com/swaprouter/swaprouter/pkg/client"
)

// A stream holder is a child process (this same binary) that opens idle GET /v1/events
// streams and reads them with pkg/client's reader, so the bench process holds only the
// server's side of each stream, as a frontend whose clients are other machines does: their
// readers neither add to its goroutines, heap and GC work nor compete with it for the CPU
// scheduler inside one runtime.
//
// The parent writes one holdRequest as a JSON line on the holder's stdin and keeps stdin
// open; the holder answers "open <n>" on stdout once every stream has its response headers
// (the frontend flushes them on opening), or "failed: <reason>" and exits 1. It closes its
// streams and exits 0 when its stdin closes (the parent ended or let it go) or on SIGTERM.

// streamHolderEnv marks a process started as a stream holder.
const streamHolderEnv = "SWAPROUTER_BENCH_STREAM_HOLDER"

// holdRequest is what a holder opens: Streams streams of the partner whose key it is, on the
// frontend at Base.
type holdRequest struct {
	Base    string `json:"base"`
	KeyID   string `json:"keyId"`
	Secret  string `json:"secret"`
	Streams int    `json:"streams"`
}

// HoldStreamsIfAsked makes this process a stream holder when it was started as one: it
// holds the streams its stdin asks for and exits. Otherwise it returns at once. Binaries
// that run the bench (its command, the package's tests) call it first.
func HoldStreamsIfAsked() {
	if os.Getenv(streamHolderEnv) == "" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	code := holdStreams(ctx, os.Stdin, os.Stdout)
	stop()
	os.Exit(code)
}

// holdStreams reads the request from in, opens and reads the streams, reports on out and
// returns the exit code once in ends or ctx does.
func holdStreams(ctx context.Context, in io.Reader, out io.Writer) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := bufio.NewReader(in)
	var req holdRequest
	line, err := r.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &req)
	}
	if err != nil {
		fmt.Fprintf(out, "failed: reading the request: %v\n", err)
		return 1
	}
	go func() {
		_, _ = io.Copy(io.Discard, r)
		cancel()
	}()
	var readers sync.WaitGroup
	defer readers.Wait()
	if err := openAndRead(ctx, req, &readers); err != nil {
		fmt.Fprintf(out, "failed: %v\n", err)
		cancel()
		return 1
	}
	fmt.Fprintf(out, "open %d\n", req.Streams)
	<-ctx.Done()
	return 0
}

// openAndRead opens req.Streams streams at concurrency 32 and reads each in a goroutine of
// readers until ctx ends; any stream that fails to open is an error.
func openAndRead(ctx context.Context, req holdRequest, readers *sync.WaitGroup) error {
	c, err := streamClient(req.Base, req.KeyID, req.Secret)
	if err != nil {
		return err
	}
	res := Closed(ctx, 32, 0, req.Streams, func(_ context.Context, _, _ int) error {
		st, err := c.OpenEvents(ctx, swapclient.StreamEventsParams{})
		if err != nil {
			return err
		}
		readers.Go(func() {
			defer st.Close()
			for {
				if _, err := st.Next(); err != nil {
					return
				}
			}
		})
		return nil
	})
	if res.Errors > 0 {
		return fmt.Errorf("opening %d streams: %d failed (first: %v)", req.Streams, res.Errors, res.FirstErr)
	}
	return nil
}

// streamHolder is a running holder process, seen from the bench.
type streamHolder struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr bytes.Buffer
	exited chan struct{} // closed once cmd.Wait returned; then waitErr is set
	// waitErr is cmd.Wait's result.
	waitErr error
}

// startStreamHolder starts a holder for req and returns once it reports every stream open;
// on ctx's end or the holder's failure it stops the holder and returns why.
func startStreamHolder(ctx context.Context, req holdRequest) (*streamHolder, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	h := &streamHolder{cmd: exec.Command(exe), exited: make(chan struct{})}
	h.cmd.Env = append(os.Environ(), streamHolderEnv+"=1")
	h.cmd.Stderr = &h.stderr
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, report := io.Pipe()
	h.cmd.Stdout = report
	if err := h.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the stream holder: %w", err)
	}
	go func() {
		h.waitErr = h.cmd.Wait()
		report.Close()
		close(h.exited)
	}()
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			first <- sc.Text()
		}
		close(first)
		_, _ = io.Copy(io.Discard, stdout) // later lines, so the holder never blocks writing
	}()

	if err := json.NewEncoder(h.stdin).Encode(req); err != nil {
		return nil, errors.Join(fmt.Errorf("sending the stream holder its request: %w", err), h.stop(ctx))
	}
	var line string
	select {
	case line = <-first:
	case <-ctx.Done():
		return nil, errors.Join(fmt.Errorf("waiting for %d streams to open: %w", req.Streams, ctx.Err()), h.stop(context.Background()))
	}
	if want := fmt.Sprintf("open %d", req.Streams); line != want {
		<-h.exited
		return nil, fmt.Errorf("the stream holder answered %q (exit: %v; stderr: %s)", line, h.waitErr, strings.TrimSpace(h.stderr.String()))
	}
	return h, nil
}

// stop closes the holder's stdin, which closes its streams, and waits for it to exit; past
// ctx's end it kills it.
func (h *streamHolder) stop(ctx context.Context) error {
	_ = h.stdin.Close()
	select {
	case <-h.exited:
	case <-ctx.Done():
		_ = h.cmd.Process.Kill()
		<-h.exited
		return fmt.Errorf("the stream holder did not exit once told to: %w", ctx.Err())
	}
	if h.waitErr != nil {
		return fmt.Errorf("the stream holder: %w (stderr: %s)", h.waitErr, strings.TrimSpace(h.stderr.String()))
	}
	return nil
}
