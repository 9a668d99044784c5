package bench

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the stream holder the event stream scenario starts.
func TestMain(m *testing.M) {
	HoldStreamsIfAsked()
	os.Exit(m.Run())
}
