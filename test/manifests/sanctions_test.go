package manifests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/swaprouter/swaprouter/internal/screening"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
)

// publishedSDN is three records as SDN.CSV publishes them; only the second and third list a
// digital currency address.
const publishedSDN = "36,\"AEROCARIBBEAN AIRLINES\",-0- ,\"CUBA\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n" +
	"25308,\"LAZARUS GROUP\",-0- ,\"DPRK3\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"Digital Currency Address - ETH 0x8589427373D6D84E98730D7795D8f6f8731FDA16; Digital Currency Address - XBT 1AjZPMsnmpdK2Rv9KQNfMurTXinscVro9V\"\r\n" +
	"31000,\"EXAMPLE, \"\"MIXER\"\"\",-0- ,\"CYBER2\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"Digital Currency Address - TRX TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf\"\r\n\x1a"

// The CronJob's fetch script, run here on a local copy of the published file (file://), writes
// a kustomization whose ConfigMap is the one the frontends watch, with the records that carry
// addresses, unchanged, and parses as the list.
func TestSanctionsCronJobWritesTheWatchedConfigMap(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (make tools installs it)")
	}
	var cronJob map[string]any
	for _, o := range renderObjects(t, "config/sanctions") {
		if o["kind"] == "CronJob" {
			cronJob = o
		}
	}
	spec := field(cronJob, "spec", "jobTemplate", "spec", "template", "spec")
	script, _ := field(spec, "initContainers", 0, "args", 0).(string)
	if script == "" {
		t.Fatal("no fetch script in the CronJob")
	}
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "SDN.CSV")
	if err := os.WriteFile(src, []byte(publishedSDN), 0o644); err != nil {
		t.Fatal(err)
	}
	// The script works in /work, the pod's emptyDir.
	cmd := exec.Command("sh", "-euc", strings.ReplaceAll(script, "cd /work", "cd "+work))
	cmd.Env = append(os.Environ(), "SDN_URL=file://"+src)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fetch script: %v\n%s", err, out)
	}
	var cm struct {
		Kind     string
		Metadata struct {
			Name        string
			Annotations map[string]string
		}
		Data map[string]string
	}
	if err := yaml.Unmarshal(kubectl(t, "", nil, "kustomize", work), &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Kind != "ConfigMap" || cm.Metadata.Name != sdnwatch.ConfigMapName || cm.Metadata.Annotations[sdnwatch.DateAnnotation] == "" {
		t.Fatalf("generated %+v", cm)
	}
	l, err := screening.ParseSDN([]byte(cm.Data[sdnwatch.Key]))
	if err != nil {
		t.Fatal(err)
	}
	if l.Records() != 2 || l.Len() != 3 {
		t.Errorf("the ConfigMap's list has %d records and %d addresses, want 2 and 3", l.Records(), l.Len())
	}
	if !bytes.Contains([]byte(cm.Data[sdnwatch.Key]), []byte("\"EXAMPLE, \"\"MIXER\"\"\"")) {
		t.Errorf("records were changed on the way:\n%s", cm.Data[sdnwatch.Key])
	}

	// A download with no addresses in it writes nothing.
	if err := os.WriteFile(src, []byte("<html>maintenance</html>\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(work, "kustomization.yaml"))
	cmd = exec.Command("sh", "-euc", strings.ReplaceAll(script, "cd /work", "cd "+work))
	cmd.Env = append(os.Environ(), "SDN_URL=file://"+src)
	if err := cmd.Run(); err == nil {
		t.Errorf("the script succeeded on a page without the list")
	}
	if _, err := os.Stat(filepath.Join(work, "kustomization.yaml")); err == nil {
		t.Errorf("a failed download wrote a kustomization")
	}
}
