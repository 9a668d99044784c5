package relay

import (
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/providertest"
)

func TestAgainstSimulator(t *testing.T) {
	refunded := providertest.Want{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "Refunded"}
	providertest.Suite{
		Provider: simulator.Relay,
		New:      func(cfg provider.Config) (provider.Provider, error) { return New(cfg) },
		Calls: map[string]string{
			"Assets": simulator.CallChains, "Quote": simulator.CallQuote, "CreateDeposit": simulator.CallQuote,
			"Status": simulator.CallStatus, "SubmitDeposit": simulator.CallStatus,
		},
		Unlisted:      [2]string{"near:wNEAR", "eth:ETH"},
		Excluded:      [2]string{"bsc:USDT", "btc:BTC"},
		SubmitCounted: true,
		ExactOutput:   true,
		// A strict address refunds an under-payment, a deposit after the ttl, and a fill the
		// market cannot meet in full: Relay fills whole or not at all.
		UnderDeposit:    refunded,
		HalfDeposit:     refunded,
		LateDeposit:     refunded,
		PartialFill:     &refunded,
		QuietLimits:     true,
		NoStatusAmounts: true,
		Window: func(p provider.Provider, d time.Duration) {
			a := p.(*Adapter)
			a.window, a.fillAllowance = d, 0
		},
	}.Run(t)
}
