package v1alpha1

import (
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPreciseTimeKeepsMicrosecondsAndReadsWholeSeconds(t *testing.T) {
	for _, tc := range []struct {
		name, stored string
		want         time.Time
		written      string
	}{
		{"written with microseconds", `"2026-03-10T12:00:05.123456Z"`, time.Date(2026, 3, 10, 12, 0, 5, 123456000, time.UTC), `"2026-03-10T12:00:05.123456Z"`},
		{"stored before, whole seconds", `"2026-03-10T12:00:05Z"`, time.Date(2026, 3, 10, 12, 0, 5, 0, time.UTC), `"2026-03-10T12:00:05.000000Z"`},
		{"milliseconds, another zone", `"2026-03-10T13:00:05.5+01:00"`, time.Date(2026, 3, 10, 12, 0, 5, 500000000, time.UTC), `"2026-03-10T12:00:05.500000Z"`},
		{"nanoseconds are cut to microseconds", `"2026-03-10T12:00:05.123456789Z"`, time.Date(2026, 3, 10, 12, 0, 5, 123456000, time.UTC), `"2026-03-10T12:00:05.123456Z"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got PreciseTime
			if err := json.Unmarshal([]byte(tc.stored), &got); err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tc.want) {
				t.Errorf("read %s as %v, want %v", tc.stored, got.Time, tc.want)
			}
			out, _ := json.Marshal(got)
			if string(out) != tc.written {
				t.Errorf("wrote %s, want %s", out, tc.written)
			}
		})
	}
	// metav1.Time, as a transition's time was written before, loses the fraction.
	old, _ := json.Marshal(metav1.NewTime(time.Date(2026, 3, 10, 12, 0, 5, 123456000, time.UTC)))
	if string(old) != `"2026-03-10T12:00:05Z"` {
		t.Fatalf("metav1.Time wrote %s", old)
	}
}

func TestCreatedAt(t *testing.T) {
	second := metav1.NewTime(time.Date(2026, 3, 10, 12, 0, 5, 0, time.UTC))
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		want        time.Time
	}{
		{"stamped by the frontend", map[string]string{AnnotationCreatedAt: "2026-03-10T12:00:04.999001Z"}, time.Date(2026, 3, 10, 12, 0, 4, 999001000, time.UTC)},
		{"created before the annotation", nil, second.Time},
		{"unreadable annotation", map[string]string{AnnotationCreatedAt: "yesterday"}, second.Time},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &SwapOrder{}
			o.CreationTimestamp, o.Annotations = second, tc.annotations
			if got := o.CreatedAt(); !got.Equal(tc.want) {
				t.Errorf("CreatedAt() = %v, want %v", got, tc.want)
			}
		})
	}
}
