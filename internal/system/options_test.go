package system_test

import (
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/swaprouter/swaprouter/internal/system"
)

// The webhook retry schedule flag: empty keeps the design's schedule, a list replaces it,
// a negative delay is refused before anything starts.
func TestWebhookRetryScheduleFlag(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    []time.Duration
		invalid bool
	}{
		{args: nil, want: nil},
		{args: []string{"--webhook-retry-schedule=0s,1s,5s"}, want: []time.Duration{0, time.Second, 5 * time.Second}},
		{args: []string{"--webhook-retry-schedule=0s,-1s"}, invalid: true},
	} {
		o, err := parseOptions(t, tc.args)
		if (err != nil) != tc.invalid {
			t.Errorf("%v: Validate() = %v, want invalid %v", tc.args, err, tc.invalid)
		}
		if tc.invalid {
			continue
		}
		if !slices.Equal(o.WebhookSchedule, tc.want) {
			t.Errorf("%v: schedule %v, want %v", tc.args, o.WebhookSchedule, tc.want)
		}
	}
}

// One provider must never be able to hold every order worker: its call cap stays below the
// worker count (0 lets the reconciler take half of it).
func TestProviderConcurrencyBelowOrderConcurrency(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		invalid bool
	}{
		{args: nil},
		{args: []string{"--provider-concurrency=0"}},
		{args: []string{"--order-concurrency=32", "--provider-concurrency=16"}},
		{args: []string{"--provider-concurrency=16"}, invalid: true},
		{args: []string{"--order-concurrency=4", "--provider-concurrency=8"}, invalid: true},
		{args: []string{"--order-concurrency=1", "--provider-concurrency=1"}},
	} {
		_, err := parseOptions(t, tc.args)
		if (err != nil) != tc.invalid {
			t.Errorf("%v: Validate() = %v, want invalid %v", tc.args, err, tc.invalid)
		}
	}
}

// parseOptions parses args as the manager's flags over the defaults and returns the options
// with Validate's verdict.
func parseOptions(t *testing.T, args []string) (system.Options, error) {
	t.Helper()
	o := system.DefaultOptions()
	fs := pflag.NewFlagSet("manager", pflag.ContinueOnError)
	o.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return o, o.Validate()
}
