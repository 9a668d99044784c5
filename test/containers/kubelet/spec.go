package kubelet

import (
	"fmt"
	"slices"

	seccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	corev1 "k8s.io/api/core/v1"
)

// Launch is what the kubelet has decided for one container before the runtime starts it.
type Launch struct {
	Argv, Env []string
	Cwd       string
	User      Identity
	Hostname  string
	// Mounts are the Pod's volumes and the kubelet's own files (/etc/hosts, /etc/resolv.conf).
	Mounts []specs.Mount
	// NetNS is the Pod sandbox's network namespace, shared by its containers.
	NetNS       string
	CgroupsPath string
}

// defaultCapabilities are the capabilities a container runtime (containerd, CRI-O) grants a
// container before the Pod's drop and add.
var defaultCapabilities = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW", "CAP_SETGID",
	"CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE",
}

// Capabilities applies the container's drop and add to the runtime's default set.
func Capabilities(sc *corev1.SecurityContext) []string {
	caps := slices.Clone(defaultCapabilities)
	if sc == nil || sc.Capabilities == nil {
		return caps
	}
	for _, d := range sc.Capabilities.Drop {
		if d == "ALL" {
			caps = nil
			break
		}
		caps = slices.DeleteFunc(caps, func(c string) bool { return c == "CAP_"+string(d) })
	}
	for _, a := range sc.Capabilities.Add {
		if !slices.Contains(caps, "CAP_"+string(a)) {
			caps = append(caps, "CAP_"+string(a))
		}
	}
	return caps
}

// Spec is the OCI runtime spec for the container: its process, identity, capabilities,
// no_new_privs, seccomp, root file system, mounts, namespaces and cgroup limits as the
// Pod asks for them.
func Spec(pod *corev1.Pod, c corev1.Container, l Launch) (*specs.Spec, error) {
	sc := c.SecurityContext
	if sc == nil {
		sc = &corev1.SecurityContext{}
	}
	if sc.Privileged != nil && *sc.Privileged {
		return nil, fmt.Errorf("privileged containers are not supported")
	}
	caps := Capabilities(sc)
	s := &specs.Spec{
		Version: specs.Version,
		Process: &specs.Process{
			Args: l.Argv, Env: l.Env, Cwd: l.Cwd,
			User:            specs.User{UID: l.User.UID, GID: l.User.GID},
			Capabilities:    &specs.LinuxCapabilities{Bounding: caps, Permitted: caps, Effective: caps},
			NoNewPrivileges: sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation,
		},
		Root:     &specs.Root{Path: "rootfs", Readonly: sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem},
		Hostname: l.Hostname,
		Mounts:   append(defaultMounts(), l.Mounts...),
		Linux: &specs.Linux{
			Namespaces: []specs.LinuxNamespace{
				{Type: specs.PIDNamespace}, {Type: specs.IPCNamespace}, {Type: specs.UTSNamespace}, {Type: specs.MountNamespace},
				{Type: specs.NetworkNamespace, Path: l.NetNS},
			},
			CgroupsPath:   l.CgroupsPath,
			Resources:     resources(c.Resources),
			MaskedPaths:   maskedPaths,
			ReadonlyPaths: readonlyPaths,
		},
	}
	if s.Process.Cwd == "" {
		s.Process.Cwd = "/"
	}
	switch profile := seccompProfile(pod, c); profile {
	case corev1.SeccompProfileTypeRuntimeDefault:
		sp, err := seccomp.GetDefaultProfile(s)
		if err != nil {
			return nil, err
		}
		s.Linux.Seccomp = sp
	case "", corev1.SeccompProfileTypeUnconfined:
	default:
		return nil, fmt.Errorf("seccomp profile %s is not supported", profile)
	}
	return s, nil
}

// seccompProfile is the container's seccomp profile type, else the Pod's.
func seccompProfile(pod *corev1.Pod, c corev1.Container) corev1.SeccompProfileType {
	if c.SecurityContext != nil && c.SecurityContext.SeccompProfile != nil {
		return c.SecurityContext.SeccompProfile.Type
	}
	if pod.Spec.SecurityContext != nil && pod.Spec.SecurityContext.SeccompProfile != nil {
		return pod.Spec.SecurityContext.SeccompProfile.Type
	}
	return ""
}

// resources are the cgroup limits: memory.limit from limits.memory, CPU shares from
// requests.cpu and a CFS quota from limits.cpu, as the kubelet computes them.
func resources(r corev1.ResourceRequirements) *specs.LinuxResources {
	out := &specs.LinuxResources{}
	if q, ok := r.Limits[corev1.ResourceMemory]; ok {
		out.Memory = &specs.LinuxMemory{Limit: ptrTo(q.Value())}
	}
	cpu := &specs.LinuxCPU{}
	if q, ok := r.Requests[corev1.ResourceCPU]; ok {
		cpu.Shares = ptrTo(uint64(max(q.MilliValue()*1024/1000, 2)))
	}
	if q, ok := r.Limits[corev1.ResourceCPU]; ok {
		const period = 100000
		cpu.Period, cpu.Quota = ptrTo(uint64(period)), ptrTo(q.MilliValue()*period/1000)
	}
	if cpu.Shares != nil || cpu.Quota != nil {
		out.CPU = cpu
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

func defaultMounts() []specs.Mount {
	return []specs.Mount{
		{Destination: "/proc", Type: "proc", Source: "proc", Options: []string{"nosuid", "noexec", "nodev"}},
		{Destination: "/dev", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "strictatime", "mode=755", "size=65536k"}},
		{Destination: "/dev/pts", Type: "devpts", Source: "devpts", Options: []string{"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}},
		{Destination: "/dev/shm", Type: "tmpfs", Source: "shm", Options: []string{"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}},
		{Destination: "/dev/mqueue", Type: "mqueue", Source: "mqueue", Options: []string{"nosuid", "noexec", "nodev"}},
		{Destination: "/sys", Type: "sysfs", Source: "sysfs", Options: []string{"nosuid", "noexec", "nodev", "ro"}},
		{Destination: "/sys/fs/cgroup", Type: "cgroup", Source: "cgroup", Options: []string{"nosuid", "noexec", "nodev", "relatime", "ro"}},
	}
}

// maskedPaths and readonlyPaths are containerd's defaults for a non-privileged container.
var (
	maskedPaths = []string{
		"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
		"/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware", "/sys/devices/virtual/powercap",
	}
	readonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}
)
