package devenv

import (
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/swaprouter/swaprouter/internal/screening"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
)

// SampleListed are the addresses the dev system's sanctions list lists: made up (valid
// addresses nobody holds), one per key scheme most orders use.
var SampleListed = []screening.Entry{
	{EntNum: 1, Name: "SAMPLE LISTING (swaprouter dev)", Program: "SAMPLE", Ticker: "ETH", Address: "0x1722D965aFD97ac053105D1BFC659cce9D4649c8"},
	{EntNum: 1, Name: "SAMPLE LISTING (swaprouter dev)", Program: "SAMPLE", Ticker: "XBT", Address: "1MsDREEzZdgjdSwhMGZiZaDBcHoEqqmsgT"},
	{EntNum: 1, Name: "SAMPLE LISTING (swaprouter dev)", Program: "SAMPLE", Ticker: "TRX", Address: "TPxTinkuTz7r1BCRuq29tnb6dGsNbXPW5Y"},
}

// ApplySanctionsList writes the dev system's sanctions list into namespace, as the sanctions
// CronJob writes OFAC's: screening needs a usable list, without which every order is refused.
// Whole-system runs declare it as an operator would.
func ApplySanctionsList(ctx context.Context, c client.Client, namespace string) error {
	var extract bytes.Buffer
	if err := screening.WriteExtract(&extract, screening.Extract{Published: screening.UnknownDate, Records: 1,
		Source: "swaprouter dev: sample entries, not OFAC's list", Entries: SampleListed}); err != nil {
		return err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: sdnwatch.ConfigMapName, Namespace: namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, c, cm, func() error {
		cm.Annotations, cm.BinaryData = nil, nil
		cm.Data = map[string]string{sdnwatch.ExtractKey: extract.String()}
		return nil
	}); err != nil {
		return fmt.Errorf("sanctions list: %w", err)
	}
	return nil
}
