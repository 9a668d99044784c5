// Package sdnupdate keeps the sanctions list ConfigMap current: it fetches OFAC's SDN.CSV and
// SDN_COMMENTS.CSV as published, makes the extract (every digital currency address, long
// remarks joined whole, with the publication date), and applies it as the ConfigMap every
// frontend replica watches. A list that is not whole, lists nothing, or would not fit a
// ConfigMap is refused with an error and nothing is written: the ConfigMap keeps its list.
package sdnupdate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/swaprouter/swaprouter/internal/screening"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
)

// OFAC's Sanctions List Service exports.
const (
	DefaultSDN      = "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.CSV"
	DefaultComments = "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN_COMMENTS.CSV"
)

// MaxConfigMapBytes is what the API server accepts in one ConfigMap's data (keys and values).
const MaxConfigMapBytes = 1 << 20

// FieldManager owns the list's ConfigMap fields it writes (the CronJob's kubectl used the
// same name, so its keys are taken over and dropped).
const FieldManager = "swaprouter-sanctions-fetcher"

// FetchedAtAnnotation is when the list was fetched: it changes at every run, so a stale list
// (the CronJob not running) shows in the replicas' load timestamps.
const FetchedAtAnnotation = "swap.swaprouter.dev/fetched-at"

// maxDownload bounds each file read (SDN.CSV is a few MB).
const maxDownload = 64 << 20

// Options say where the list comes from.
type Options struct {
	// SDN and Comments are http(s) URLs or local paths of SDN.CSV and SDN_COMMENTS.CSV.
	SDN, Comments string
	// Published is the publication date (RFC 3339 or an HTTP date); empty takes SDN.CSV's
	// Last-Modified, else the date is unknown.
	Published string
	HTTP      *http.Client
	Now       func() time.Time
}

// Make fetches the list and makes its ConfigMap (name, data and annotations; no namespace).
func Make(ctx context.Context, o Options) (*corev1.ConfigMap, error) {
	sdn, lastModified, err := fetch(ctx, o.HTTP, o.SDN)
	if err != nil {
		return nil, fmt.Errorf("SDN.CSV: %w", err)
	}
	comments, _, err := fetch(ctx, o.HTTP, o.Comments)
	if err != nil {
		return nil, fmt.Errorf("SDN_COMMENTS.CSV: %w", err)
	}
	published, err := publicationDate(o.Published, lastModified)
	if err != nil {
		return nil, err
	}
	list, err := screening.ParseSDN(sdn, comments)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the download is not the published list: %w", err)
	case len(list.Cut) > 0:
		return nil, fmt.Errorf("SDN.CSV cuts the remarks of ent_num %v and SDN_COMMENTS.CSV does not continue them: the list is not whole", list.Cut)
	case len(list.Entries) == 0:
		return nil, fmt.Errorf("SDN.CSV has %d records and no digital currency address: not the list, or its format changed", list.Records)
	}
	var extract bytes.Buffer
	if err := screening.WriteExtract(&extract, screening.Extract{Published: published, Records: list.Records, Entries: list.Entries,
		Source: fmt.Sprintf("SDN.CSV %s sha256:%s + SDN_COMMENTS.CSV %s sha256:%s", o.SDN, screening.Digest(sdn), o.Comments, screening.Digest(comments))}); err != nil {
		return nil, err
	}
	if size := len(sdnwatch.ExtractKey) + extract.Len(); size > MaxConfigMapBytes {
		return nil, fmt.Errorf("the extract is %d bytes, more than a ConfigMap holds (%d): refused, never cut short", size, MaxConfigMapBytes)
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: sdnwatch.ConfigMapName, Annotations: map[string]string{FetchedAtAnnotation: o.Now().UTC().Format(time.RFC3339)}},
		Data:       map[string]string{sdnwatch.ExtractKey: extract.String()},
	}
	return cm, nil
}

// Apply writes cm into namespace, but only once a dry run shows the ConfigMap it makes holds a
// usable list (it would not if someone else's SDN.CSV stayed beside the extract).
func Apply(ctx context.Context, c client.Client, namespace string, cm *corev1.ConfigMap) (screening.Assessment, error) {
	trial := applyConfig(cm, namespace)
	if err := c.Apply(ctx, trial, client.FieldOwner(FieldManager), client.ForceOwnership, client.DryRunAll); err != nil {
		return screening.Assessment{}, err
	}
	result := &corev1.ConfigMap{Data: trial.Data, BinaryData: trial.BinaryData}
	result.Annotations = trial.Annotations
	a := screening.Assess(sdnwatch.Published(result))
	if !a.State.Usable() {
		return a, fmt.Errorf("the ConfigMap would hold no usable list (%s: %s): nothing written", a.State, a.Detail)
	}
	return a, c.Apply(ctx, applyConfig(cm, namespace), client.FieldOwner(FieldManager), client.ForceOwnership)
}

// applyConfig is cm as a fresh apply configuration in namespace (an apply writes the answer
// into it).
func applyConfig(cm *corev1.ConfigMap, namespace string) *corev1ac.ConfigMapApplyConfiguration {
	return corev1ac.ConfigMap(cm.Name, namespace).WithAnnotations(maps.Clone(cm.Annotations)).WithData(maps.Clone(cm.Data))
}

// fetch reads source (a URL or a path) and says when it was last modified ("" unknown).
func fetch(ctx context.Context, hc *http.Client, source string) ([]byte, string, error) {
	if !strings.HasPrefix(source, "https://") && !strings.HasPrefix(source, "http://") {
		data, err := os.ReadFile(source)
		return data, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, source, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET %s: %s", source, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDownload+1))
	if err != nil {
		return nil, "", err
	}
	if len(data) > maxDownload {
		return nil, "", fmt.Errorf("GET %s: more than %d bytes", source, maxDownload)
	}
	return data, resp.Header.Get("Last-Modified"), nil
}

// publicationDate is the date to record: the operator's, else the publisher's Last-Modified,
// in RFC 3339; unknown when neither is given.
func publicationDate(given, lastModified string) (string, error) {
	for _, d := range []string{given, lastModified} {
		if d == "" {
			continue
		}
		if t, err := http.ParseTime(d); err == nil {
			return t.UTC().Format(time.RFC3339), nil
		}
		if t, err := time.Parse(time.RFC3339, d); err == nil {
			return t.UTC().Format(time.RFC3339), nil
		}
		if t, err := time.Parse(time.DateOnly, d); err == nil {
			return t.Format(time.RFC3339), nil
		}
		if d == given {
			return "", errors.New("--published is not a date (RFC 3339, YYYY-MM-DD or an HTTP date)")
		}
	}
	return screening.UnknownDate, nil
}
