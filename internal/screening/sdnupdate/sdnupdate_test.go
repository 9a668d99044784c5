package sdnupdate

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/screening"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
)

// publisher serves files as OFAC's list service does, with a Last-Modified.
func publisher(t *testing.T, files map[string][]byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Last-Modified", "Thu, 20 Jan 2022 15:04:05 GMT")
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func options(base string) Options {
	return Options{SDN: base + "/SDN.CSV", Comments: base + "/SDN_COMMENTS.CSV", HTTP: http.DefaultClient,
		Now: func() time.Time { return time.Date(2022, 1, 21, 6, 17, 0, 0, time.UTC) }}
}

func TestMakeJoinsTheCommentsIntoTheExtract(t *testing.T) {
	base := publisher(t, map[string][]byte{"SDN.CSV": fixture(t, "SDN.CSV"), "SDN_COMMENTS.CSV": fixture(t, "SDN_COMMENTS.CSV")})
	cm, err := Make(context.Background(), options(base))
	if err != nil {
		t.Fatal(err)
	}
	if cm.Name != sdnwatch.ConfigMapName || len(cm.Data) != 1 || cm.Annotations[FetchedAtAnnotation] != "2022-01-21T06:17:00Z" {
		t.Fatalf("ConfigMap %+v", cm.ObjectMeta)
	}
	extract := cm.Data[sdnwatch.ExtractKey]
	a := screening.Assess(sdnwatch.Published(cm))
	if a.State != screening.StateLoaded || a.Date != "2022-01-20T15:04:05Z" {
		t.Fatalf("the extract reads as %s %q, dated %q", a.State, a.Detail, a.Date)
	}
	// The address SDN.CSV cuts is whole; the one only the comments carry is there.
	if !strings.Contains(extract, ",XBT,3Nr3Wm1yj12difJeFyiZgeyJMPuNDkYhZk\n") || !strings.Contains(extract, ",ETH,0xD4bD9413B3DdAf4B561833e08Bc687ea5f750B21\n") {
		t.Errorf("the extract lost addresses:\n%s", extract)
	}
	if strings.Contains(extract, "3Nr3Wm1yj12difJeFyiZgeyJMPuNDk\n") {
		t.Errorf("the extract keeps a fragment")
	}
}

func TestMakeRefusesWhatIsNotAWholeList(t *testing.T) {
	sdn, comments := fixture(t, "SDN.CSV"), fixture(t, "SDN_COMMENTS.CSV")
	large := screening.SyntheticSDN(24000)
	for _, tt := range []struct {
		name  string
		files map[string][]byte
		err   string
	}{
		{"no comments file", map[string][]byte{"SDN.CSV": sdn}, "SDN_COMMENTS.CSV: GET"},
		{"comments that do not continue the cut remarks", map[string][]byte{"SDN.CSV": sdn, "SDN_COMMENTS.CSV": []byte("17016,\"tive Date.\"\r\n")},
			"SDN.CSV cuts the remarks of ent_num [90201 90202 90203] and SDN_COMMENTS.CSV does not continue them"},
		{"an error page", map[string][]byte{"SDN.CSV": []byte("<html>maintenance</html>\r\n"), "SDN_COMMENTS.CSV": comments}, "the download is not the published list"},
		{"no address", map[string][]byte{"SDN.CSV": []byte("36,\"AEROCARIBBEAN AIRLINES\",-0- ,\"CUBA\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n"), "SDN_COMMENTS.CSV": {}},
			"SDN.CSV has 1 records and no digital currency address"},
		{"a list larger than a ConfigMap", map[string][]byte{"SDN.CSV": large, "SDN_COMMENTS.CSV": {}}, "more than a ConfigMap holds (1048576): refused, never cut short"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Make(context.Background(), options(publisher(t, tt.files)))
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
		})
	}
}

func TestPublicationDate(t *testing.T) {
	for _, tt := range []struct{ given, lastModified, want string }{
		{"", "Thu, 20 Jan 2022 15:04:05 GMT", "2022-01-20T15:04:05Z"},
		{"2022-01-21", "Thu, 20 Jan 2022 15:04:05 GMT", "2022-01-21T00:00:00Z"},
		{"2022-01-21T10:00:00+01:00", "", "2022-01-21T09:00:00Z"},
		{"", "", screening.UnknownDate},
		{"", "yesterday", screening.UnknownDate},
	} {
		got, err := publicationDate(tt.given, tt.lastModified)
		if err != nil || got != tt.want {
			t.Errorf("publicationDate(%q, %q) = %q %v, want %q", tt.given, tt.lastModified, got, err, tt.want)
		}
	}
	if _, err := publicationDate("last week", ""); err == nil {
		t.Errorf("a --published that is no date is taken")
	}
}

// Local copies work as URLs do (an air-gapped cluster's operator downloads them elsewhere).
func TestMakeReadsLocalCopies(t *testing.T) {
	o := options("")
	o.SDN, o.Comments, o.Published = filepath.Join("..", "testdata", "SDN.CSV"), filepath.Join("..", "testdata", "SDN_COMMENTS.CSV"), "2022-01-20"
	cm, err := Make(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if a := screening.Assess(sdnwatch.Published(cm)); a.State != screening.StateLoaded || a.Version() != fmt.Sprintf("2022-01-20T00:00:00Z sha256:%s", a.Digest) {
		t.Fatalf("%s %s", a.State, a.Version())
	}
}
