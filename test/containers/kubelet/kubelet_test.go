package kubelet

import (
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"NS": "swaprouter-system", "EMPTY": ""}
	for in, want := range map[string]string{
		"--namespace=$(NS)":  "--namespace=swaprouter-system",
		"$(NS)/$(NS)":        "swaprouter-system/swaprouter-system",
		"$$(NS)":             "$(NS)",
		"$(MISSING)":         "$(MISSING)",
		"a$(EMPTY)b":         "ab",
		"$(NS":               "$(NS",
		"cost: $5":           "cost: $5",
		"trailing $":         "trailing $",
		"$$$(NS)":            "$swaprouter-system",
		"no references here": "no references here",
	} {
		if got := Expand(in, env); got != want {
			t.Errorf("Expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCommand(t *testing.T) {
	img := Image{Entrypoint: []string{"/swaprouter"}, Cmd: []string{"manager"}}
	env := map[string]string{"NS": "ns1"}
	for _, tc := range []struct {
		name          string
		command, args []string
		want          []string
	}{
		{"image entrypoint and cmd", nil, nil, []string{"/swaprouter", "manager"}},
		{"args replace cmd", nil, []string{"app", "--namespace=$(NS)"}, []string{"/swaprouter", "app", "--namespace=ns1"}},
		{"command replaces entrypoint and cmd", []string{"/bin/x", "$(NS)"}, nil, []string{"/bin/x", "ns1"}},
		{"command and args", []string{"/bin/x"}, []string{"$(NS)"}, []string{"/bin/x", "ns1"}},
	} {
		got := Command(img, corev1.Container{Command: tc.command, Args: tc.args}, env)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestEnv(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p-0", Namespace: "ns1", UID: "u1", Labels: map[string]string{"app": "a"}},
		Spec:       corev1.PodSpec{NodeName: "node-0", ServiceAccountName: "sa"},
		Status:     corev1.PodStatus{PodIP: "10.88.0.2", HostIP: "10.88.0.1"},
	}
	ctr := corev1.Container{
		Name: "c",
		Env: []corev1.EnvVar{
			{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
			{Name: "APP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}}},
			{Name: "IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
			{Name: "GOMEMLIMIT", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1")}}},
			{Name: "MEM_MI", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}},
			{Name: "CPU", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "requests.cpu", Divisor: resource.MustParse("1")}}},
			{Name: "DSN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "dsn"}}},
			{Name: "URL", Value: "http://$(IP):80/$(UNSET)"},
			{Name: "SSL_CERT_FILE", Value: "/custom"},
		},
		Resources: corev1.ResourceRequirements{
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
		},
	}
	svc := corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "swaprouter-redis"},
		Spec:       corev1.ServiceSpec{ClusterIP: "10.0.0.7", Ports: []corev1.ServicePort{{Name: "redis", Port: 6379}}},
	}
	kube := corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes"},
		Spec:       corev1.ServiceSpec{ClusterIP: "10.88.0.1", Ports: []corev1.ServicePort{{Name: "https", Port: 6443}}},
	}
	objs := Objects{Secrets: map[string]map[string][]byte{"db": {"dsn": []byte("postgres://db")}}}
	img := Image{Env: []string{"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt", "PATH=/"}}

	got, err := Env(pod, ctr, img, []corev1.Service{svc, kube}, objs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"POD_NAMESPACE=ns1", "APP=a", "IP=10.88.0.2", "GOMEMLIMIT=536870912", "MEM_MI=512", "CPU=1", "DSN=postgres://db",
		"URL=http://10.88.0.2:80/$(UNSET)", "SSL_CERT_FILE=/custom", "PATH=/",
		"KUBERNETES_SERVICE_HOST=10.88.0.1", "KUBERNETES_SERVICE_PORT=6443", "KUBERNETES_SERVICE_PORT_HTTPS=6443",
		"SWAPROUTER_REDIS_SERVICE_HOST=10.0.0.7", "SWAPROUTER_REDIS_PORT=tcp://10.0.0.7:6379",
		"SWAPROUTER_REDIS_PORT_6379_TCP_ADDR=10.0.0.7",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("env lacks %s: %v", want, got)
		}
	}

	pod.Spec.EnableServiceLinks = ptr.To(false)
	got, _ = Env(pod, ctr, img, []corev1.Service{svc, kube}, objs)
	if slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, "SWAPROUTER_REDIS_") }) ||
		!slices.Contains(got, "KUBERNETES_SERVICE_HOST=10.88.0.1") {
		t.Errorf("enableServiceLinks: false keeps only the kubernetes Service's links: %v", got)
	}

	ctr.Env = []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "missing"}, Key: "k"}}}}
	if _, err := Env(pod, ctr, img, nil, objs); err == nil {
		t.Error("a missing Secret key is an error (the kubelet does not start the container)")
	}
}

func TestUser(t *testing.T) {
	nonRoot := &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true)}
	for _, tc := range []struct {
		name    string
		podSC   *corev1.PodSecurityContext
		sc      *corev1.SecurityContext
		image   string
		want    Identity
		wantErr string
	}{
		{"image uid:gid", nonRoot, nil, "65532:65532", Identity{65532, 65532}, ""},
		{"image uid only", nonRoot, nil, "1000", Identity{1000, 0}, ""},
		{"no user is root, refused by runAsNonRoot", nonRoot, nil, "", Identity{}, "will run as root"},
		{"uid 0 refused by runAsNonRoot", nonRoot, nil, "0:0", Identity{}, "will run as root"},
		{"named user cannot be verified", nonRoot, nil, "nonroot", Identity{}, "non-numeric user"},
		{"root allowed without runAsNonRoot", nil, nil, "", Identity{0, 0}, ""},
		{"pod runAsUser overrides the image", &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](999)}, nil, "65532:65532", Identity{999, 65532}, ""},
		{"container runAsUser/runAsGroup override the pod", &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](999)},
			&corev1.SecurityContext{RunAsUser: ptr.To[int64](7), RunAsGroup: ptr.To[int64](8)}, "", Identity{7, 8}, ""},
		{"container runAsUser 0 refused by the pod's runAsNonRoot", nonRoot, &corev1.SecurityContext{RunAsUser: ptr.To[int64](0)}, "65532", Identity{}, "will run as root"},
	} {
		pod := &corev1.Pod{Spec: corev1.PodSpec{SecurityContext: tc.podSC}}
		got, err := User(pod, corev1.Container{SecurityContext: tc.sc}, Image{User: tc.image})
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr == "" && got != tc.want:
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestVolumeFiles(t *testing.T) {
	objs := Objects{
		Secrets:    map[string]map[string][]byte{"key": {"keyId": []byte("k1"), "secret": []byte("s")}},
		ConfigMaps: map[string]map[string]string{"kube-root-ca.crt": {"ca.crt": "CA"}},
	}
	secretVol := corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "key", DefaultMode: ptr.To[int32](0o400)}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1"}}

	files, err := VolumeFiles(pod, secretVol, objs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Mode != 0o400 || files[0].GID != 0 {
		t.Errorf("defaultMode 0400 without fsGroup: root-only files, got %+v", files)
	}
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{FSGroup: ptr.To[int64](65532)}
	files, _ = VolumeFiles(pod, secretVol, objs, nil)
	if files[0].Mode != 0o440 || files[0].GID != 65532 {
		t.Errorf("with fsGroup the files are the group's and group-readable, got %+v", files[0])
	}
	if _, err := VolumeFiles(pod, corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "absent"}}}, objs, nil); err == nil {
		t.Error("a missing Secret is an error")
	}

	spec := WithServiceAccountVolume(corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}, nil)
	if len(spec.Containers[0].VolumeMounts) != 1 || spec.Containers[0].VolumeMounts[0].MountPath != ServiceAccountMountPath {
		t.Fatalf("token volume mounted at %s: %+v", ServiceAccountMountPath, spec.Containers[0].VolumeMounts)
	}
	var audience string
	files, err = VolumeFiles(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1"}}, spec.Volumes[0], objs, func(aud string, exp int64) (string, error) {
		audience = aud
		return "tok", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]string{}
	for _, f := range files {
		byPath[f.Path] = string(f.Data)
		if f.Mode != os.FileMode(0o644) {
			t.Errorf("%s mode %o, want 644", f.Path, f.Mode)
		}
	}
	if byPath["token"] != "tok" || byPath["ca.crt"] != "CA" || byPath["namespace"] != "ns1" || audience != "" {
		t.Errorf("token volume files: %v (audience %q)", byPath, audience)
	}
	for _, off := range []corev1.PodSpec{{AutomountServiceAccountToken: ptr.To(false)}} {
		if got := WithServiceAccountVolume(off, nil); len(got.Volumes) != 0 {
			t.Error("automountServiceAccountToken: false mounts no token")
		}
	}
	if got := WithServiceAccountVolume(corev1.PodSpec{}, ptr.To(false)); len(got.Volumes) != 0 {
		t.Error("a ServiceAccount with automount off mounts no token")
	}
	if got := WithServiceAccountVolume(corev1.PodSpec{AutomountServiceAccountToken: ptr.To(true)}, ptr.To(false)); len(got.Volumes) != 1 {
		t.Error("the Pod's automount wins over its ServiceAccount's")
	}
}

func TestSpec(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}}}
	restricted := corev1.Container{
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}},
	}
	s, err := Spec(pod, restricted, Launch{Argv: []string{"/x"}, User: Identity{65532, 65532}})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case !s.Process.NoNewPrivileges:
		t.Error("allowPrivilegeEscalation: false sets no_new_privs")
	case !s.Root.Readonly:
		t.Error("readOnlyRootFilesystem: true makes the root read-only")
	case len(s.Process.Capabilities.Bounding)+len(s.Process.Capabilities.Effective) != 0:
		t.Errorf("drop ALL leaves no capability: %+v", s.Process.Capabilities)
	case s.Linux.Seccomp == nil || s.Linux.Seccomp.DefaultAction == "SCMP_ACT_ALLOW":
		t.Errorf("RuntimeDefault is a filter that refuses by default: %+v", s.Linux.Seccomp)
	case s.Linux.Resources.Memory == nil || *s.Linux.Resources.Memory.Limit != 512<<20:
		t.Errorf("memory limit: %+v", s.Linux.Resources.Memory)
	case s.Process.User.UID != 65532:
		t.Errorf("user: %+v", s.Process.User)
	}

	loose, err := Spec(&corev1.Pod{}, corev1.Container{}, Launch{})
	if err != nil {
		t.Fatal(err)
	}
	if loose.Process.NoNewPrivileges || loose.Root.Readonly || loose.Linux.Seccomp != nil || len(loose.Process.Capabilities.Bounding) != len(defaultCapabilities) {
		t.Errorf("an unconstrained container gets the runtime's defaults: %+v", loose.Process)
	}
	if _, err := Spec(&corev1.Pod{}, corev1.Container{SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}, Launch{}); err == nil {
		t.Error("privileged containers are refused")
	}
}

func TestCapabilities(t *testing.T) {
	got := Capabilities(&corev1.SecurityContext{Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: []corev1.Capability{"NET_BIND_SERVICE"}}})
	if !slices.Equal(got, []string{"CAP_NET_BIND_SERVICE"}) {
		t.Errorf("drop ALL, add NET_BIND_SERVICE: %v", got)
	}
	got = Capabilities(&corev1.SecurityContext{Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"NET_RAW"}}})
	if slices.Contains(got, "CAP_NET_RAW") || len(got) != len(defaultCapabilities)-1 {
		t.Errorf("drop NET_RAW: %v", got)
	}
}

func TestProbeTarget(t *testing.T) {
	ctr := corev1.Container{Name: "c", Ports: []corev1.ContainerPort{{Name: "probes", ContainerPort: 8081}, {Name: "redis", ContainerPort: 6379}}}
	for _, tc := range []struct {
		probe corev1.ProbeHandler
		want  Probe
	}{
		{corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("probes")}}, Probe{URL: "http://10.88.0.2:8081/healthz"}},
		{corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "readyz", Port: intstr.FromInt(9000), Scheme: corev1.URISchemeHTTPS}}, Probe{URL: "https://10.88.0.2:9000/readyz"}},
		{corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("redis")}}, Probe{Addr: "10.88.0.2:6379"}},
	} {
		got, err := ProbeTarget("10.88.0.2", ctr, &corev1.Probe{ProbeHandler: tc.probe})
		if err != nil || got != tc.want {
			t.Errorf("%+v: %+v, %v; want %+v", tc.probe, got, err, tc.want)
		}
	}
	if _, err := ProbeTarget("10.88.0.2", ctr, &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromString("metrics")}}}); err == nil {
		t.Error("a port name the container does not declare is an error")
	}
}
