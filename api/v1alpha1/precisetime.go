package v1alpha1

import (
	"encoding/json"
	"time"
)

// PreciseTime is a point in time stored to the microsecond, as RFC 3339 with six fractional
// digits. metav1.Time keeps whole seconds in JSON, which cannot order what happened within
// one second; metav1.MicroTime cannot read the whole-second times stored before. PreciseTime
// reads both.
// +kubebuilder:validation:Type=string
// +kubebuilder:validation:Format=date-time
// +kubebuilder:object:generate=false
type PreciseTime struct {
	time.Time `json:"-"`
}

// PreciseTimeLayout is how a PreciseTime is written.
const PreciseTimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// NewPreciseTime is t to the microsecond (what storage keeps), in UTC.
func NewPreciseTime(t time.Time) PreciseTime {
	return PreciseTime{Time: t.UTC().Truncate(time.Microsecond)}
}

// MarshalJSON writes the time in UTC with microseconds, null when zero.
func (t PreciseTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(PreciseTimeLayout))
}

// UnmarshalJSON reads an RFC 3339 time with any number of fractional digits, or none.
func (t *PreciseTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	parsed, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	*t = NewPreciseTime(parsed)
	return nil
}

// ToUnstructured is the JSON string form, so converters to unstructured keep the fraction.
func (t PreciseTime) ToUnstructured() any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(PreciseTimeLayout)
}

// DeepCopyInto copies t into out (a time is a value).
func (t *PreciseTime) DeepCopyInto(out *PreciseTime) { *out = *t }

// CreatedAt is when the order was created: AnnotationCreatedAt when it holds a time, else
// metadata.creationTimestamp (whole seconds).
func (o *SwapOrder) CreatedAt() time.Time {
	if s, ok := o.Annotations[AnnotationCreatedAt]; ok {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC().Truncate(time.Microsecond)
		}
	}
	return o.CreationTimestamp.UTC()
}
