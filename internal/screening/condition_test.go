package screening

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestListCondition(t *testing.T) {
	loaded := Assess(Published{Present: true, SDN: []byte(sampleSDN), Date: "2026-01-02"})
	missing := Assess(Published{Where: "ConfigMap swaprouter-sanctions"})
	incomplete := Assess(Published{Present: true, SDN: readFixture(t, "SDN.CSV")})
	open := &swapv1.PartnerScreening{OnUnavailable: swapv1.ScreeningFailOpen}
	tests := []struct {
		name    string
		a       Assessment
		policy  *swapv1.PartnerScreening
		status  metav1.ConditionStatus
		reason  string
		message []string
	}{
		{"loaded", loaded, nil, metav1.ConditionTrue, "Loaded", []string{"new orders are screened with the list 2026-01-02 sha256:", "7 listed keys"}},
		{"missing, fail-closed by default", missing, nil, metav1.ConditionFalse, "Missing",
			[]string{"ConfigMap swaprouter-sanctions does not exist; new orders are refused with 503 service unavailable (onUnavailable: fail-closed)"}},
		{"missing, fail-open", missing, open, metav1.ConditionFalse, "Missing",
			[]string{"does not exist; new orders are created without being screened by the list, recorded FailedOpen (onUnavailable: fail-open)"}},
		{"incomplete", incomplete, nil, metav1.ConditionFalse, "Incomplete",
			[]string{"ent_num 90201, 90202, 90203", "refused with 503", "the addresses it does list still match"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ListCondition(tt.a, tt.policy)
			if c.Type != swapv1.ConditionSanctionsList || c.Status != tt.status || c.Reason != tt.reason {
				t.Fatalf("condition %+v", c)
			}
			for _, m := range tt.message {
				if !strings.Contains(c.Message, m) {
					t.Errorf("message %q lacks %q", c.Message, m)
				}
			}
		})
	}
}
